"""Who hears what: cross-process pub/sub (:mod:`.hub`, :mod:`.hub_sharded`), each
connection's ordered event feed (:mod:`.feed`), spectating and presence."""
