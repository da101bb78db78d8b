"""No Kafka counterpart: package marker for Kafka 2.4's core/src/main/scala/kafka/utils/timer/.

Reading order: timer_task.py (TimerTask) -> timer_task_list.py (TimerTaskList, TimerTaskEntry)
-> timing_wheel.py (TimingWheel) -> timer.py (Timer, SystemTimer).
"""
