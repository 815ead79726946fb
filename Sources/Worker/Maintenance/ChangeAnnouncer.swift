import JobQueue
import Observability
import Postgres
import ServiceLifecycle

/// Tells the console's live pages that this worker's jobs finished, failed or went back: at most
/// once a second, when its outcomes moved, on a statement of its own. Inside the completion's
/// transaction a NOTIFY serialises every worker's commits (bench/RESULTS.md, Queue A/B).
struct ChangeAnnouncer: Service {
    let database: Database
    let tally: Tally

    func run() async {
        var announced = await tally.summary.outcomes
        await Periodic.run(every: 1) {
            let outcomes = await tally.summary.outcomes
            guard outcomes != announced else { return }
            // A failed announcement is not retried: the console's own safety net shows it.
            if (try? await database.withConnection { try JobQueue.announceChanges($0) }) != nil { announced = outcomes }
        }
    }
}
