import JobQueue
import Logging
import Postgres

/// Tells the queue when this worker starts preparing the file of a job that runs alone (a
/// suspect: it ran beside three crashes), and when the file is prepared. A crash in between is
/// the file's doing (`JobQueue.rescue`); any other is not. Only suspects are marked, so a night
/// without crashes writes nothing more. A mark that cannot be written leaves a crash uncounted:
/// a file is never blamed on a guess.
struct SuspectMarks: Sendable {
    let database: Database
    let workerID: String
    let logger: Logger

    /// Marks `job`'s file as being prepared. Written or not (a mark is not worth holding the
    /// job for), the file is then prepared.
    func preparing(_ job: Job) async { _ = await write(job, preparing: true, attempts: 3) }

    /// Clears the mark, whether or not it was seen written (a write that committed as its
    /// connection dropped): whatever stops the worker now is not this file's doing. False when
    /// the database could not be told: the job is then handed back, not sent.
    func prepared(_ job: Job) async -> Bool { await write(job, preparing: false, attempts: 8) }

    private func write(_ job: Job, preparing: Bool, attempts: Int) async -> Bool {
        let workerID = self.workerID, database = self.database
        do {
            try await Retrying.database(
                logger: logger, preparing ? "mark a suspect's file as being prepared" : "clear a suspect's mark",
                attempts: attempts
            ) {
                try await database.withConnection {
                    try JobQueue.markPreparingAlone($0, jobID: job.id, workerID: workerID, preparing: preparing)
                }
            }
            return true
        } catch {
            logger.warning(
                preparing
                    ? "could not mark a suspect's file; a crash now would not count against it"
                    : "could not clear a suspect's mark; the job goes back to the queue unsent",
                metadata: ["job": "\(job.id)", "error": "\(error)"])
            return false
        }
    }
}
