"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/metrics/stats/SampledStat.java
(with stats/Rate.java, stats/Avg.java, stats/SimpleRate.java, stats/CumulativeSum.java and stats/WindowedSum.java)

Classes: Sample, SampledStat, WindowedSum, Avg, Rate, SimpleRate, CumulativeSum.

A SampledStat keeps ``MetricConfig.samples`` samples of ``time_window_ms`` each; a record goes into the
current sample, a new sample starts once the current one is a window old (the oldest is reused when all
are taken), and a measurement first resets samples older than ``samples * time_window_ms``. ``Rate``
divides a WindowedSum by ``Rate.window_size``: the time from the oldest sample's start to now, but at
least ``samples - 1`` whole windows, so one burst on a fresh sensor is not read as an enormous rate;
``SimpleRate`` (the replication quotas') waits at least one window only.
Left out: event-count windows (``MetricConfig.eventWindow``), time units other than seconds,
percentiles and the other stats.
"""
from __future__ import annotations


class Sample:
    """Kafka: SampledStat.Sample."""

    __slots__ = ("initial_value", "event_count", "last_window_ms", "value")

    def __init__(self, initial_value: float, now: int):
        self.initial_value = initial_value
        self.event_count = 0
        self.last_window_ms = now
        self.value = initial_value

    # Kafka: Sample.reset
    def reset(self, now: int) -> None:
        self.event_count = 0
        self.last_window_ms = now
        self.value = self.initial_value

    # Kafka: Sample.isComplete
    def is_complete(self, time_ms: int, config) -> bool:
        return time_ms - self.last_window_ms >= config.time_window_ms or self.event_count >= config.event_window


class SampledStat:
    """Kafka: SampledStat(initialValue) -- a stat measured over a ring of time-windowed samples."""

    def __init__(self, initial_value: float = 0.0):
        self.initial_value = initial_value
        self.samples: list[Sample] = []
        self.current = 0

    # Kafka: SampledStat.record
    def record(self, config, value: float, time_ms: int) -> None:
        sample = self.current_sample(time_ms)
        if sample.is_complete(time_ms, config):
            sample = self.advance(config, time_ms)
        self.update(sample, config, value, time_ms)
        sample.event_count += 1

    # Kafka: SampledStat.advance
    def advance(self, config, time_ms: int) -> Sample:
        self.current = (self.current + 1) % config.samples
        if self.current >= len(self.samples):
            sample = Sample(self.initial_value, time_ms)
            self.samples.append(sample)
        else:
            sample = self.samples[self.current]
            sample.reset(time_ms)
        return sample

    # Kafka: SampledStat.measure
    def measure(self, config, now: int) -> float:
        self.purge_obsolete_samples(config, now)
        return self.combine(self.samples, config, now)

    # Kafka: SampledStat.current
    def current_sample(self, time_ms: int) -> Sample:
        if not self.samples:
            self.samples.append(Sample(self.initial_value, time_ms))
        return self.samples[self.current]

    # Kafka: SampledStat.oldest
    def oldest(self, now: int) -> Sample:
        if not self.samples:
            self.samples.append(Sample(self.initial_value, now))
        return min(self.samples, key=lambda s: s.last_window_ms)

    # Kafka: SampledStat.purgeObsoleteSamples -- reset samples that ended before the whole window
    def purge_obsolete_samples(self, config, now: int) -> None:
        expire_age = config.samples * config.time_window_ms
        for sample in self.samples:
            if now - sample.last_window_ms >= expire_age:
                sample.reset(now)

    def update(self, sample: Sample, config, value: float, time_ms: int) -> None:
        raise NotImplementedError

    def combine(self, samples: list[Sample], config, now: int) -> float:
        raise NotImplementedError


class WindowedSum(SampledStat):
    """Kafka: WindowedSum -- the sum of the values recorded in the window."""

    # Kafka: WindowedSum.update
    def update(self, sample: Sample, config, value: float, time_ms: int) -> None:
        sample.value += value

    # Kafka: WindowedSum.combine
    def combine(self, samples: list[Sample], config, now: int) -> float:
        return sum(s.value for s in samples)


class Avg(SampledStat):
    """Kafka: Avg -- the mean of the values recorded in the window (NaN with none)."""

    # Kafka: Avg.update
    def update(self, sample: Sample, config, value: float, time_ms: int) -> None:
        sample.value += value

    # Kafka: Avg.combine
    def combine(self, samples: list[Sample], config, now: int) -> float:
        total = sum(s.value for s in samples)
        count = sum(s.event_count for s in samples)
        return float("nan") if count == 0 else total / count


class Rate:
    """Kafka: Rate -- a WindowedSum per second of window (TimeUnit.SECONDS)."""

    def __init__(self, stat: SampledStat | None = None):
        self.stat = stat if stat is not None else WindowedSum()

    # Kafka: Rate.record
    def record(self, config, value: float, time_ms: int) -> None:
        self.stat.record(config, value, time_ms)

    # Kafka: Rate.measure
    def measure(self, config, now: int) -> float:
        value = self.stat.measure(config, now)
        return value / (self.window_size(config, now) / 1000.0)

    # Kafka: Rate.windowSize -- elapsed since the oldest sample, at least samples-1 full windows
    def window_size(self, config, now: int) -> int:
        self.stat.purge_obsolete_samples(config, now)
        total_elapsed_time_ms = now - self.stat.oldest(now).last_window_ms
        num_full_windows = total_elapsed_time_ms // config.time_window_ms
        min_full_windows = config.samples - 1
        if num_full_windows < min_full_windows:
            total_elapsed_time_ms += (min_full_windows - num_full_windows) * config.time_window_ms
        return total_elapsed_time_ms


class SimpleRate(Rate):
    """Kafka: SimpleRate -- a Rate over the time since the oldest sample, at least one window (not
    samples-1 windows): the replication quotas' rate, which must react to a burst at once."""

    # Kafka: SimpleRate.windowSize
    def window_size(self, config, now: int) -> int:
        self.stat.purge_obsolete_samples(config, now)
        elapsed = now - self.stat.oldest(now).last_window_ms
        return config.time_window_ms if elapsed < config.time_window_ms else elapsed


class CumulativeSum:
    """Kafka: CumulativeSum -- everything ever recorded, added up."""

    def __init__(self, value: float = 0.0):
        self.total = value

    # Kafka: CumulativeSum.record
    def record(self, config, value: float, time_ms: int) -> None:
        self.total += value

    # Kafka: CumulativeSum.measure
    def measure(self, config, now: int) -> float:
        return self.total
