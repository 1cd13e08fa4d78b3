"""Redis keys that several parts of the service read: the store keeps them, the
sweeper and the metrics read them."""

DUE_KEY = "rooms:due"  # sorted set: playing room id -> when it next needs a job
PENDING_SYNC = "sync:pending"  # sorted set: "<room>|<target>" -> since when it waits
PENDING_PRESSES = "presses:pending"  # sorted set: QueuedPress.member -> when it was answered
IDLE_KEY = "rooms:idle"  # sorted set: open room id -> when it ends if nobody acts in it
TIMERS_KEY = "rooms:timers"  # sorted set: room id -> when its phase's next timer is due
