"""Composing mail: the messages the service writes, before the outbox queues them."""
