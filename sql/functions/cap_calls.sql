-- A service's spend cap in billed calls: its cap in calls, or its cap in money divided by its
-- price, whichever is lower; NULL without a cap. The rate gate (take_rate_tokens), the lifting of
-- spent caps (lift_spent_caps) and the plan (plan_until) all read the cap through this.
CREATE OR REPLACE FUNCTION discern.cap_calls(budget discern.service_budgets) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
    SELECT nullif(least(coalesce(budget.cap_calls::numeric, 'Infinity'),
                        coalesce(floor(budget.cap_money / nullif(budget.price_per_call, 0)), 'Infinity')), 'Infinity');
$$;
