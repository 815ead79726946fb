-- discern schema, version 24: discern.take_rate_token, one slot per call, has been dead since
-- migration 0018 (workers lease consecutive slots with discern.take_rate_tokens): dropped, so
-- nothing reads or grants it any more.
DROP FUNCTION IF EXISTS discern.take_rate_token(text);
