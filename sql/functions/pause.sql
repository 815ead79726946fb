-- Pauses a service: workers stop claiming its jobs at their next claim (discern.claim_jobs skips
-- it), jobs in flight finish, nothing is cancelled. Who paused it, when and why stay in
-- paused_backends for the console's Overview and `discern status`. True when it was running and
-- is paused now; false when it was paused already. `discern pause` and the Overview's Pause
-- button call it.
CREATE OR REPLACE FUNCTION discern.pause(backend text, paused_by text DEFAULT current_user, reason text DEFAULT NULL)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO discern.paused_backends (backend, paused_by, reason) VALUES (backend, paused_by, reason)
    ON CONFLICT ON CONSTRAINT paused_backends_pkey DO NOTHING;
    RETURN FOUND;
END;
$$;
