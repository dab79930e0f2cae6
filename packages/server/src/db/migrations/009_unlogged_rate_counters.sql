-- Rate counters live for a minute (ten for failed coupon codes) and are written by nearly every
-- request of a publishable key: an allowance per visitor address. Unlogged, those writes skip the
-- write-ahead log, and a statement that writes nothing else commits without waiting for a WAL
-- flush. What a crash costs is the counts of the windows running then, which start again at zero.
ALTER TABLE rate_counters SET UNLOGGED;
