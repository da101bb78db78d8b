"""No Kafka counterpart: the benchmark's results table (Markdown) and plot (PNG).

``summarise(runs)`` reduces the raw runs to one row per scenario: the median of each broker's
repetitions, the kafkalite/peer ratio, broker CPU-s/GB, neighbour load and whether the issue's
goal is met. ``write_markdown`` and ``write_plot`` render those rows (the plot needs matplotlib;
without it only the table is written).
"""
from __future__ import annotations

import statistics

PEER = "tansu"


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarise(scenarios, runs) -> list[dict]:
    rows = []
    for sc in scenarios:
        row = {"id": sc["id"], "label": sc["label"], "group": sc["group"], "metric": sc["metric"],
               "unit": sc["unit"], "higher_is_better": sc["higher"], "goal": sc.get("goal", ""), "brokers": {}}
        for broker in sorted({r["broker"] for r in runs if r["scenario"] == sc["id"]}):
            mine = [r for r in runs if r["scenario"] == sc["id"] and r["broker"] == broker]
            row["brokers"][broker] = {
                "median": _median([r["result"].get(sc["metric"]) for r in mine]),
                "values": [r["result"].get(sc["metric"]) for r in mine],
                "extra": {k: _median([r["result"].get(k) for r in mine]) for k in sc.get("extra", [])},
                "cpu_s_per_gb": _median([r.get("cpu_s_per_gb") for r in mine]),
                "foreign_cores": _median([r.get("foreign_cores") for r in mine]),
                "errors": sum(r["result"].get("errors", 0) or 0 for r in mine),
            }
        kl, peer = row["brokers"].get("kafkalite"), row["brokers"].get(PEER)
        row["ratio"] = (kl["median"] / peer["median"]
                        if kl and peer and kl["median"] is not None and peer["median"] else None)
        row["goal_met"] = _goal(sc, row)
        rows.append(row)
    return rows


def _goal(sc, row):
    goal, ratio = sc.get("goal"), row["ratio"]
    kl = row["brokers"].get("kafkalite")
    if goal == "ratio>=1" and ratio is not None:
        return ratio >= 1.0
    if goal == "ratio<=1.5" and ratio is not None:
        return ratio <= 1.5
    if goal == "no errors" and kl is not None:
        return kl["errors"] == 0
    return None


def _fmt(v, unit=""):
    if v is None:
        return "–"
    if isinstance(v, float):
        if abs(v) >= 100:
            return f"{v:,.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.3g}"
    return str(v)


def write_markdown(path, rows, machine, limits, meta, profile=None) -> str:
    out = [f"# kafkalite benchmark results ({meta['when']})", "",
           f"Command: `{meta['command']}`  ", f"Machine: {machine}  ",
           f"Repetitions: {meta['reps']} per broker per scenario, interleaved (kafkalite, {PEER}, kafkalite, …); "
           "medians shown. MB = 2^20 bytes. CPU-s/GB is the broker's utime+stime per GB (2^30 B) of payload moved. "
           "`foreign` is the median number of cores busy with other work during the run.", ""]
    if meta.get("notes"):
        out += [f"- {n}" for n in meta["notes"]] + [""]
    out += ["| scenario | metric | kafkalite | " + PEER + " | kafkalite/" + PEER + " | goal | "
            "CPU-s/GB kl | CPU-s/GB " + PEER + " | foreign cores | errors kl/" + PEER + " |",
            "|---|---|---:|---:|---:|---|---:|---:|---:|---|"]
    for r in rows:
        kl, peer = r["brokers"].get("kafkalite", {}), r["brokers"].get(PEER, {})
        goal = r["goal"] or ""
        if r["goal_met"] is True:
            goal += " ✅"
        elif r["goal_met"] is False:
            goal += " ❌"
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "–"
        out.append(f"| {r['label']} | {r['metric']} ({r['unit']}) | {_fmt(kl.get('median'))} | "
                   f"{_fmt(peer.get('median'))} | {ratio} | {goal} | {_fmt(kl.get('cpu_s_per_gb'))} | "
                   f"{_fmt(peer.get('cpu_s_per_gb'))} | {_fmt(kl.get('foreign_cores'))} | "
                   f"{kl.get('errors', '–')}/{peer.get('errors', '–')} |")
        for key in ([k for k in (kl.get("extra") or {})]):
            out.append(f"| ↳ | {key} | {_fmt(kl['extra'].get(key))} | {_fmt((peer.get('extra') or {}).get(key))} "
                       "| | | | | | |")
    if meta.get("failures"):
        out += ["", "Runs with errors (their throughput is left out of the medians):", ""]
        out += [f"- {f}" for f in meta["failures"]]
    if limits:
        out += ["", "## This machine's limit (trivial Python loops, same run)", "",
                "| loop | MB/s median (runs) | loop CPU-s/GB | kafkalite scenario | kafkalite MB/s | fraction | goal |"
                " kafkalite broker CPU-s/GB |",
                "|---|---:|---:|---|---:|---:|---|---:|"]
        for lim in limits:
            frac = lim.get("fraction")
            ok = "" if frac is None else (" ✅" if frac >= 0.5 else " ❌")
            goal = "(reference, not the issue's loop)" if lim.get("reference") else f"≥ 50%{ok}"
            out.append(f"| {lim['loop']} | {_fmt(lim['median'])} ({', '.join(_fmt(v) for v in lim['values'])}) | "
                       f"{_fmt(lim.get('cpu_s_per_gb'))} | {lim['against']} | {_fmt(lim.get('kafkalite'))} | "
                       f"{'–' if frac is None else f'{frac:.0%}'} | {goal} | "
                       f"{_fmt(lim.get('kafkalite_cpu_s_per_gb'))} |")
    if profile:
        out += ["", "## Profile of the kafkalite broker under load (py-spy, non-idle samples)", ""]
        for name, prof in profile.items():
            out += [f"### {name}: {prof['samples']} samples, {prof.get('wait_pct', 0):.0f}% in wait frames", "",
                    "| self (leaf, waits left out): file:function | % | | inclusive (kafkalite only) | % |",
                    "|---|---:|---|---|---:|"]
            for i in range(max(len(prof["self"]), len(prof["inclusive"]))):
                s = prof["self"][i] if i < len(prof["self"]) else ("", None)
                c = prof["inclusive"][i] if i < len(prof["inclusive"]) else ("", None)
                out.append(f"| `{s[0]}` | {_fmt(s[1])} | | `{c[0]}` | {_fmt(c[1])} |")
            out += ["", "Threads: " + ", ".join(f"{n} {p:.0f}%" for n, p in prof["threads"][:6]), ""]
    if meta.get("scale"):   # issue 18's scale group: its own tables (bench/scale.py)
        from bench import scale
        out += scale.markdown(meta["scale"])
    text = "\n".join(out) + "\n"
    with open(path, "w") as f:
        f.write(text)
    return text


def write_plot(path, rows, limits) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    colors = {"kafkalite": "#1f77b4", PEER: "#ff7f0e", "machine": "#7f7f7f"}
    fig = plt.figure(figsize=(17, 11))
    grid = fig.add_gridspec(2, 3, height_ratios=[1.1, 1])
    top = fig.add_subplot(grid[0, :])
    axes = [[top, fig.add_subplot(grid[1, 0])], [fig.add_subplot(grid[1, 1]), fig.add_subplot(grid[1, 2])]]

    def bars(ax, group_rows, title, ylabel, metric_of=lambda r, b: r["brokers"].get(b, {}).get("median")):
        brokers = ["kafkalite", PEER]
        width = 0.38
        for i, b in enumerate(brokers):
            raw = [metric_of(r, b) for r in group_rows]
            xs = [j + (i - 0.5) * width for j in range(len(group_rows))]
            bs = ax.bar(xs, [v or 0 for v in raw], width, label=b, color=colors[b])
            ax.bar_label(bs, labels=["n/a" if v is None else f"{v:.0f}" for v in raw], fontsize=7, padding=1)
        ax.set_xticks(range(len(group_rows)))
        ax.set_xticklabels([r["label"].removeprefix("produce ").removeprefix("consume ")
                            .replace("kafka-producer-perf-test", "perf-test").replace(", ", "\n")
                            for r in group_rows], fontsize=8)
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)

    produce = [r for r in rows if r["group"] == "produce"]
    if produce:
        bars(axes[0][0], produce, "Produce throughput (confluent-kafka unless named; median MB/s, higher is better)",
             "MB/s")
    consume = [r for r in rows if r["group"] == "consume"]  # includes kcat -C
    if consume:
        bars(axes[0][1], consume, "Consume from the beginning (median)", "MB/s")
    lat = [r for r in rows if r["group"] == "latency"]
    ax = axes[1][0]
    if lat:
        r = lat[0]
        keys = ["p50_ms", "p99_ms", "p999_ms"]
        for i, b in enumerate(["kafkalite", PEER]):
            br = r["brokers"].get(b)
            if not br:
                continue
            vals = [br["median"] if k == r["metric"] else br["extra"].get(k) for k in keys]
            bs = ax.bar([j + (i - 0.5) * 0.38 for j in range(3)], [v or 0 for v in vals], 0.38, label=b,
                        color=colors[b])
            ax.bar_label(bs, fmt="%.1f", fontsize=8, padding=1)
        ax.set_xticks(range(3))
        ax.set_xticklabels(["p50", "p99", "p99.9"])
        ax.set_title(f"End-to-end latency, {r['label']} (lower is better)")
        ax.set_ylabel("ms")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    ax = axes[1][1]
    if limits:
        labels, vals, cols = [], [], []
        for lim in limits:   # a loop set against two scenarios (socket → file: kcat and raw produce) drawn once
            loop = lim["loop"].split(" (")[0].replace(" → ", "\n→ ")
            if loop not in labels:
                labels.append(loop)
                vals.append(lim["median"] or 0)
                cols.append(colors["machine"])
            if lim.get("reference"):   # the kept-file loop: its kafkalite bars are the ones drawn already
                continue
            labels.append("kafkalite\n" + lim["against"].split(", ")[0])
            vals.append(lim.get("kafkalite") or 0)
            cols.append(colors["kafkalite"])
        bs = ax.bar(range(len(vals)), vals, color=cols)
        ax.bar_label(bs, fmt="%.0f", fontsize=8, padding=1)
        ax.set_xticks(range(len(vals)))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_title("kafkalite vs the machine's limit (grey: trivial loop)")
        ax.set_ylabel("MB/s")
        ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
