"""Time: each game's clock, deadlines and timeouts, reminders, and the scheduler process.

`clock` reads a game's clock from its repository (pauses, timeouts played by default);
`reminders` queues a reminder before a deadline; `scheduler` runs the jobs (deadlines,
reminders, forge polls, the outbox) with APScheduler. Imports `games`, `forge`, `mail`
and `home`.
"""
