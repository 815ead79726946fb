-- discern schema, version 34: the same W3C traceparent check (migration 0033), written so it
-- costs about 1 µs a row instead of 4-5 (a scan of a million rows, 2026-11-27). PostgreSQL
-- checks every CHECK of a row on every UPDATE, even when the column is untouched, so with tracing
-- on a job paid the counted-repetition regex ({32}, {16}) twice on its way through the queue
-- (claim and completion): 7-10 µs of server CPU of the ~80 a job costs (bench/RESULTS.md, "Issue
-- 43, part 2"). The new form accepts exactly the same values: 55 characters, all lower-case hex or
-- '-', with '-' at 3, 36 and 53 and nowhere else (TraceTests.cheaperCheckIsTheSame compares the
-- two on crafted values).
-- NOT VALID: every row written since 0033 already holds the (identical) old check.
ALTER TABLE discern.jobs DROP CONSTRAINT jobs_traceparent_w3c;
ALTER TABLE discern.jobs ADD CONSTRAINT jobs_traceparent_w3c
    CHECK (octet_length(traceparent) = 55 AND traceparent ~ '^[0-9a-f-]+$'
           AND substr(traceparent, 3, 1) = '-' AND substr(traceparent, 36, 1) = '-' AND substr(traceparent, 53, 1) = '-'
           AND octet_length(replace(traceparent, '-', '')) = 52) NOT VALID;
