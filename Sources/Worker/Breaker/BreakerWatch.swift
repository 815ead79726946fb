import Observability
import ServiceLifecycle

/// Reads every few seconds which services other workers found down (or up again), so this
/// worker prepares no photo for a service that cannot take it.
struct BreakerWatch: Service {
    let breakers: ServiceBreakers
    let services: [String]

    func run() async {
        await Periodic.run(every: breakers.settings.refreshSeconds) {
            await breakers.refresh(services)
        }
    }
}
