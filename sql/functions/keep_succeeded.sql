-- A succeeded job stays succeeded: its result is the one result of that job, and moving it back
-- (an UPDATE ... SET state = 'available') would analyse the image again and lose either the new
-- answer or the old one. The trigger refuses, with a hint: enqueue a new job instead; the old
-- result stays.
CREATE OR REPLACE FUNCTION discern.keep_succeeded() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'job % already succeeded and has its result; it cannot become % again', OLD.id, NEW.state
        USING ERRCODE = 'check_violation',
              HINT = 'to analyse the image again, enqueue a new job: SELECT discern.enqueue(image_path, backend, action, params) FROM discern.jobs WHERE id = ' || OLD.id;
END;
$$;

DROP TRIGGER IF EXISTS jobs_keep_succeeded ON discern.jobs;
CREATE TRIGGER jobs_keep_succeeded BEFORE UPDATE OF state ON discern.jobs
FOR EACH ROW WHEN (OLD.state = 'succeeded' AND NEW.state <> 'succeeded')
EXECUTE FUNCTION discern.keep_succeeded();
