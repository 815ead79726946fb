import ServiceClients
import Foundation
import JobQueue
import Logging
import Observability
import Postgres
import ServiceLifecycle

/// Tells people a batch is done (docs/operations.md, "When the night is done"). Every few
/// seconds: the batches that ended and settled become events (`WebhookOutbox.announce`;
/// every worker runs it, one at a time, so the checks the jobs' statements append never pile
/// up), then this worker delivers the events due to the destinations it is configured with,
/// each taken by one worker at a time, retried with backoff until the settings give up.
/// `--drain`: when the worker stops, what ended is announced at once and delivered once more.
struct WebhookDispatcher: Service {
    let database: Database
    let settings: WebhookSettings
    let sender: WebhookSender?
    let intervalSeconds: Double
    let drain: Bool
    let logger: Logger

    init(database: Database, settings: WebhookSettings, version: String, intervalSeconds: Double, drain: Bool, logger: Logger) {
        self.database = database
        self.settings = settings
        sender =
            settings.destinations.isEmpty ? nil : WebhookSender(secret: settings.secret, timeoutSeconds: settings.timeoutSeconds, version: version)
        self.intervalSeconds = intervalSeconds
        self.drain = drain
        self.logger = logger
    }

    private var names: [String] { settings.destinations.map(\.name) }

    func run() async {
        if sender != nil {
            logger.info(
                "webhooks on",
                metadata: [
                    "destinations": "\(names.joined(separator: ","))", "signed": "\(settings.secret != nil)",
                    "settle_seconds": "\(settings.settleSeconds)"
                ])
        }
        var registered = false
        await Periodic.run(every: intervalSeconds, logger: logger, failure: "announcing batches or delivering their webhooks failed") {
            if !registered {
                try await database.withConnection { try WebhookOutbox.register($0, destinations: names) }
                registered = true
            }
            try await turn(settleSeconds: settings.settleSeconds)
        }
        // Stopping. A drained worker's batches are done now: they need not settle, and whoever
        // waits for the webhook should not wait for the next worker. Within the grace
        // period; what is not delivered stays due for the next worker.
        guard drain else { return }
        do {
            if !registered { try await database.withConnection { try WebhookOutbox.register($0, destinations: names) } }
            try await turn(settleSeconds: 0)
        } catch {
            logger.warning("the last webhooks were not sent; the next worker sends them", metadata: ["error": "\(error)"])
        }
    }

    private func turn(settleSeconds: Double) async throws {
        let announced = try await database.withConnection { try WebhookOutbox.announce($0, settleSeconds: settleSeconds) }
        if announced > 0 { logger.notice("batches done", metadata: ["batches": "\(announced)"]) }
        guard let sender else { return }
        let due = try await database.withConnection {
            try WebhookOutbox.takeDue($0, destinations: names, limit: 20, leaseSeconds: settings.timeoutSeconds + 60)
        }
        for delivery in due {
            guard let destination = settings.destinations.first(where: { $0.name == delivery.destination }) else { continue }
            let outcome = await deliver(delivery, to: destination, with: sender)
            try await database.withConnection { try WebhookOutbox.record($0, delivery, outcome) }
        }
    }

    private func deliver(
        _ due: WebhookOutbox.Due, to destination: WebhookDestination, with sender: WebhookSender
    ) async -> WebhookOutbox.Outcome {
        let deliveryID = "\(due.eventID)-\(destination.name.split(separator: "/").last ?? "")"
        let result: WebhookSender.Result
        do {
            result = await sender.send(
                try BatchNotice.body(reportJSON: due.reportJSON, deliveryID: deliveryID, consoleURL: settings.consoleURL),
                deliveryID: deliveryID, to: destination)
        } catch {
            logger.error("a batch's webhook could not be written", metadata: ["event": "\(due.eventID)", "error": "\(error)"])
            return .failed(status: nil, error: error.description)
        }
        switch result {
        case .delivered(let status):
            logger.notice(
                "webhook delivered",
                metadata: ["event": "\(due.eventID)", "destination": "\(destination.name)", "attempt": "\(due.attempt)"])
            return .delivered(status: status)
        case .failed(let status, let message):
            let wait = settings.retryDelay(afterAttempt: due.attempt)
            if due.ageSeconds + wait > settings.giveUpAfterSeconds {
                logger.error(
                    "a webhook was given up",
                    metadata: [
                        "event": "\(due.eventID)", "destination": "\(destination.name)",
                        "attempts": "\(due.attempt)", "error": "\(message)"
                    ])
                return .failed(status: status, error: "given up after \(due.attempt) tries: \(message)")
            }
            logger.warning(
                "a webhook failed; trying again later",
                metadata: [
                    "event": "\(due.eventID)", "destination": "\(destination.name)", "attempt": "\(due.attempt)", "retry_in_seconds": "\(wait)",
                    "error": "\(message)"
                ])
            return .retry(status: status, error: message, retryInSeconds: wait)
        }
    }
}
