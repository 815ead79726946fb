-- discern schema, version 28: what a night costs and what it may cost (discern plan, docs/
-- operations.md "Planning a night").
--
-- service_budgets: per service, what a billed call costs (in the operator's currency: discern
-- only multiplies) and, optionally, a cap on billed calls per day or month, in calls or money.
-- Edited with SQL or `discern budget`; read by the plan, the console, the workers' rate gate.
CREATE TABLE discern.service_budgets (
    backend text PRIMARY KEY CHECK (length(backend) BETWEEN 1 AND 100),
    price_per_call numeric CHECK (price_per_call >= 0),
    cap_calls bigint CHECK (cap_calls >= 0),
    cap_money numeric CHECK (cap_money >= 0),
    cap_period text NOT NULL DEFAULT 'month' CHECK (cap_period IN ('day', 'month')),
    updated_at timestamptz NOT NULL DEFAULT now(),
    updated_by text NOT NULL DEFAULT current_user,
    CONSTRAINT money_cap_needs_a_price CHECK (cap_money IS NULL OR price_per_call > 0)
);

-- billed_calls: calls that reached (or were about to reach) each service, per UTC day: every
-- call a worker took a rate-limit slot for, counted when the slot is taken, whether the call
-- succeeded or not (the services bill what reaches them). One row per service and day.
CREATE TABLE discern.billed_calls (
    backend text NOT NULL,
    day date NOT NULL,
    calls bigint NOT NULL DEFAULT 0 CHECK (calls >= 0),
    PRIMARY KEY (backend, day)
);
