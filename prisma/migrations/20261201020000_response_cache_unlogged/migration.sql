-- The response cache's entries are a cache: each miss writes one, and none of them is what a
-- caller paid for (the charge, usage and log row of a call are in logged tables). Unlogged, an
-- entry costs no WAL, and a commit that wrote only entries waits for no flush. What that gives
-- up: after a crash of PostgreSQL (not a clean restart) the table is emptied, and a standby has
-- none of it: the calls that follow are misses and fill it again.
ALTER TABLE "ResponseCacheEntry" SET UNLOGGED;
