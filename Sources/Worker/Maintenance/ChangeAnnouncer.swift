import JobQueue
import Observability
import Postgres
import ServiceLifecycle

/// Tells the console's live pages (and the tests, which wait on the same channel) that this
/// worker claimed, finished, failed, handed back or rescued jobs: at most once a second, when
/// those moved, on a statement of its own. Inside a claim's or a completion's transaction a
/// NOTIFY serialises every worker's commits (bench/RESULTS.md, Queue A/B).
struct ChangeAnnouncer: Service {
    let database: Database
    let tally: OutcomeCounts

    func run() async {
        // From nothing, not from the count at start: a claim made before the first look is announced too.
        var announced = 0
        await Periodic.run(every: 1) {
            let changes = await tally.changes
            guard changes != announced else { return }
            // A failed announcement is not retried: the console's own safety net shows it.
            if (try? await database.withConnection { try JobQueue.announceChanges($0) }) != nil { announced = changes }
        }
    }
}
