import ServiceClients
import JobQueue
import Logging
import ServiceLifecycle
import Telemetry

/// Runs the jobs the producer claimed, each as a child task of one task group, and hands what
/// became of each to the completer. Nothing outlives `run()`: it returns once the producer has
/// finished and every job is done. Cancelled (the grace period is over), jobs in flight stop
/// and are handed back.
struct Executor: Service {
    let inbox: OneWayQueue<Job>
    let outbox: OneWayQueue<JobOutcome>
    let execution: JobExecution
    let abandonments: Abandonments
    let traces: JobTraces

    func run() async {
        await withDiscardingTaskGroup { group in
            while let job = await inbox.next() {
                group.addTask() {
                    let outcome = await Traces.within(traces.process(job.id)) { await execute(job) }
                    // Done with the job but for writing it down: its room in the pipeline is free.
                    await execution.inFlight.outcomeReady(job.id)
                    await outbox.send(outcome)
                }
            }
        }
        await outbox.finish()
        // Stay until the group asks: a service that ends before its turn ends the group.
        try? await gracefulShutdown()
    }

    /// The job's work, raced against its abandonment: a job whose lease was lost stops.
    private func execute(_ job: Job) async -> JobOutcome {
        let outcome = await withTaskGroup(of: JobOutcome?.self) { race in
            race.addTask() { await execution.run(job) }
            race.addTask() {
                await abandonments.wait(for: job.id)
                return nil
            }
            var outcome: JobOutcome?
            while let next = await race.next() {
                if let next { outcome = next }
                race.cancelAll()
            }
            return outcome
        }
        defer { abandonments.forget(job.id) }
        if abandonments.isAbandoned(job.id) { return .abandoned(job) }
        return outcome ?? .handBack(job)
    }
}
