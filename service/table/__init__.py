"""The platform-neutral table: rooms, the lobby, the play path, timers and use cases."""
