import DedicatedThreads
import Postgres
import ServiceLifecycle

/// The worker's one direct session, which both listens for new jobs (waking the producer) and
/// proves the worker alive: it holds the worker's advisory lock from the moment the heartbeat
/// registered it (`SessionLock.hold`) until the worker ends, so a rescuer elsewhere sees at once
/// when this process is gone. First in the group, it stops last: a worker finishing its jobs in
/// the grace period is still seen alive. Without a direct URL (a transaction pooler) there is
/// neither: the producer polls, and rescuers judge the worker by its heartbeats.
struct Presence: Service {
    let listenConninfo: String?
    let lock: SessionLock
    let wakeup: Signal

    func run() async {
        let listener = listenConninfo.map { conninfo in
            NotificationListener(conninfo: conninfo, channel: "discern_jobs", holding: lock) { [wakeup] in wakeup.signal() }
        }
        // Until the group shuts down (or is cancelled): either way the session ends here.
        try? await gracefulShutdown()
        await listener?.stop()
    }
}
