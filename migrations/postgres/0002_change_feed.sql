-- Numbers the changes announced on the sieve_changes channel (src/db/change-feed.ts): an instance
-- that sees the number move past the last notification it received has missed one.
CREATE SEQUENCE sieve_change_seq;
