/// The `# HELP` text of every discern metric. swift-metrics has no place for help text, so the
/// exposition is annotated on its way out (`annotate`); `promtool check metrics` wants it, and
/// people reading /metrics do too. docs/operations.md lists the same metrics.
enum MetricHelp {
    static let texts: [String: String] = [
        "discern_jobs_total":
            "Jobs this worker finished an attempt of, by service and outcome (succeeded, dead, retry_scheduled, lease_lost, handed_back, not_recorded, given_back: its service was unavailable, attempt not counted).",
        "discern_failed_attempts_total": "Failed attempts, by service and error kind (the job may still be retried).",
        "discern_stage_duration_seconds": "Time spent per stage (claim, prepare, analyze, complete), by service.",
        "discern_jobs_in_flight": "Jobs this worker holds, by stage (prepare, total).",
        "discern_bytes_total": "Image bytes read from disk (direction=in) and sent to the service (direction=out), by service.",
        "discern_api_calls_total": "HTTP calls made to the services for succeeded jobs, by service.",
        "discern_queue_depth":
            "Waiting (available) and running jobs by service, as sampled by this worker every 15 s (discern monitor publishes every state).",
        "discern_rate_limit_wait_seconds": "Time waited for a slot of a shared rate limit, by limit key.",
        "discern_result_write_failures_total":
            "Results or failures that could not be written to PostgreSQL, by reason (refused: the data; database: the connection or server).",
        "discern_build_info": "Always 1; the labels say which discern version runs.",
        "discern_queue_jobs": "Jobs in the queue by service and state (waiting: ready to run now; scheduled: waiting for a retry time).",
        "discern_queue_oldest_waiting_seconds": "Age of the oldest job ready to run, by service (0 when none).",
        "discern_queue_finished_recent": "Jobs finished in the last 10 minutes, by service and state (succeeded, dead).",
        "discern_queue_live_workers": "Workers heartbeating that serve the service.",
        "discern_queue_database_up": "1 when the monitor's last look at PostgreSQL succeeded, else 0.",
        "discern_database_oldest_snapshot_seconds":
            "How long the oldest transaction in the queue's database (a client's snapshot or transaction id, or a prepared one) has held back vacuum (0: none).",
        "discern_plan_finish_seconds":
            "Seconds until the queued jobs of the service finish at the forecast pace: bound early or late (+Inf: nothing moves them).",
        "discern_plan_unfinished_jobs": "Jobs of the service that will not finish before the night's window ends (--plan-until).",
        "discern_plan_window_seconds": "Seconds until the night's window ends (--plan-until).",
        "discern_service_calls_total":
            "HTTP calls this worker sent to the services, by service and result (2xx, 4xx, 429, 5xx, no_answer, cancelled), retries and probes included.",
        "discern_service_unavailable":
            "1 while the workers find the service unavailable (its breaker open: no job claimed but one probe at a time), else 0.",
        "discern_service_unavailable_seconds": "How long the service has been unavailable (0 while it is available).",
        "discern_service_probes_failed": "Probes of the unavailable service that failed since it was found down.",
        "discern_breaker_open": "1 while this worker knows the service to be unavailable (it prepares and calls nothing for it), else 0.",
        "discern_budget_cap_used_ratio":
            "The share of the service's spend cap used in its period (discern.service_budgets); 1: reached, the service waits."
    ]

    /// Inserts `# HELP name text` before each `# TYPE name ...` line that has none.
    static func annotate(_ exposition: String) -> String {
        var lines: [Substring] = []
        var helped = Set<Substring>()
        for line in exposition.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# HELP ") {
                helped.insert(line.dropFirst(7).prefix { $0 != " " })
            } else if line.hasPrefix("# TYPE ") {
                let name = line.dropFirst(7).prefix { $0 != " " }
                if !helped.contains(name), let text = texts[String(name)] {
                    lines.append("# HELP \(name) \(text)")
                    helped.insert(name)
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
