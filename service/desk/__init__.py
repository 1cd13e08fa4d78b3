"""The front desk: every incoming update, from any platform, has its one owner here.

A platform's parser reads its update into a `Request` (service.desk.asks); `Desk`
claims it once, finds the person, routes it to its use case, commits through the store
and answers with a `Reply` that the platform draws. Nothing here knows which platform
or which game it serves.
"""
