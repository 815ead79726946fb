/// What this worker did with the jobs it claimed, for the summary and `discern_jobs_total`.
actor OutcomeCounts {
    /// Raw values are the `outcome` label of `discern_jobs_total`.
    enum Outcome: String, Sendable {
        case succeeded, dead
        case retryScheduled = "retry_scheduled"
        /// The lease was no longer ours when the outcome was written: nothing was.
        case leaseLost = "lease_lost"
        /// Handed back unfinished at shutdown, attempt not counted.
        case handedBack = "handed_back"
        /// The database stayed away: the job runs again when its lease expires.
        case notRecorded = "not_recorded"
        /// Its service was unavailable: handed back after a wait, attempt not counted (the
        /// label is the one dashboards have read since 0.5).
        case handedBackLater = "given_back"
    }

    private(set) var summary = WorkerSummary()
    /// Jobs claimed, given an outcome or rescued so far: what the change announcer watches move.
    private(set) var changes = 0

    func claimed(_ jobs: Int) { changes += jobs }
    func rescued(_ jobs: Int) { changes += jobs }

    func count(_ jobs: Int, as outcome: Outcome) {
        changes += jobs
        switch outcome {
        case .succeeded: summary.succeeded += jobs
        case .retryScheduled: summary.retryScheduled += jobs
        case .dead: summary.dead += jobs
        case .leaseLost, .notRecorded: summary.leaseLost += jobs
        case .handedBack: summary.handedBack += jobs
        case .handedBackLater: summary.handedBackLater += jobs
        }
    }
}
