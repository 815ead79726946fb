"""What PostgreSQL spent its time on in each soak phase (pg_stat_statements, reset as a phase
starts): a claim or a completion that gets dearer as the tables grow shows here by name, where
the end-to-end latency only says that something did. run.sh preloads the extension; against a
cluster started without it every call here is a no-op."""
import psycopg


class Statements:
    def __init__(self, connection):
        self.connection = connection
        try:
            connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            connection.execute("SELECT pg_stat_statements_reset()")
            self.enabled = True
        except psycopg.Error as error:
            print(f"soak: no statement figures ({str(error).strip()})", flush=True)
            self.enabled = False

    def reset(self):
        if self.enabled:
            self.connection.execute("SELECT pg_stat_statements_reset()")

    def top(self, limit=6):
        """The statements that took the most time since the last reset: what, calls, mean ms,
        shared blocks read from outside the buffer cache per call. Entries that share a name are
        added up: pg_stat_statements files one text under several ids when psycopg sends a
        parameter as int2, int4 or int8 by its size (the producer's counters grow through them),
        and the first and last phases must pair one row each."""
        if not self.enabled:
            return []
        rows = self.connection.execute("""
            SELECT regexp_replace(left(query, 300), '\\s+', ' ', 'g'), calls, total_exec_time, shared_blks_read
            FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())""").fetchall()
        named = {}
        for query, calls, total_ms, read in rows:
            entry = named.setdefault(name(query), {"calls": 0, "total_ms": 0.0, "read": 0})
            entry["calls"] += calls
            entry["total_ms"] += total_ms
            entry["read"] += read
        ranked = sorted(named.items(), key=lambda item: item[1]["total_ms"], reverse=True)[:limit]
        return [{"query": label, "calls": entry["calls"], "mean_ms": entry["total_ms"] / max(entry["calls"], 1),
                 "total_s": entry["total_ms"] / 1000, "blocks_read": entry["read"] / max(entry["calls"], 1)}
                for label, entry in ranked]


def name(query):
    """A short, stable name for a statement: the function it calls or the table it changes."""
    lowered = query.lower()
    for marker in ("discern.claim(", "update discern.jobs", "insert into discern.jobs", "with input as", "with mine as",
                   "with stopped as"):
        if marker in lowered:
            return {"with input as": "complete", "with mine as": "heartbeat", "with stopped as": "rescue"}.get(marker, marker.rstrip("("))
    return query[:70]
