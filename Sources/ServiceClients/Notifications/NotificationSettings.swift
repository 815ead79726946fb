import Foundation

/// Who hears that a batch is done, and how hard discern tries (docs/configuration.md,
/// "Notifications"). Read from the environment or the configuration file, as the services'
/// settings are, and checked at start: a bad URL or number stops the worker with one line.
public struct NotificationSettings: Sendable {
    public var destinations: [WebhookDestination] = []
    /// Signs every notification (`WebhookSignature`); without one they go unsigned.
    public var secret: Secret?
    /// The console's address as people reach it: the notification links to the batch's report.
    public var consoleURL: String?
    /// A batch is announced once none of its jobs has finished for this long, so photos that
    /// trickle in, each done before the next arrives, make one notification, not one each.
    /// `discern work --drain` announces what ended when it stops, without waiting.
    public var settleSeconds = 60.0
    /// The pause after a failed try, doubled after each, at most `maxRetrySeconds`...
    public var firstRetrySeconds = 10.0
    public var maxRetrySeconds = 1800.0
    /// ...until the delivery has been tried this long; then it is marked failed.
    public var giveUpAfterSeconds = 86_400.0
    /// One try, connect to last byte.
    public var timeoutSeconds = 15.0

    public init() {}

    public init(_ environment: ServiceEnvironment) throws(ServiceError) {
        let allowed = Set(
            (environment.value("DISCERN_NOTIFY_ALLOW_HOSTS") ?? "")
                .split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() })
        destinations = try WebhookDestination.list(environment.value("DISCERN_NOTIFY_URLS") ?? "", allowedHosts: allowed)
        secret = try environment.secret("DISCERN_NOTIFY_SECRET")
        if let url = environment.value("DISCERN_CONSOLE_PUBLIC_URL") {
            consoleURL = try ConfigurationValue.serviceURL(url, name: "DISCERN_CONSOLE_PUBLIC_URL")
        }
        func number(_ name: String, _ fallback: Double, in range: ClosedRange<Double>) throws(ServiceError) -> Double {
            try environment.value(name).map { text throws(ServiceError) in try ConfigurationValue.number(text, name: name, in: range) } ?? fallback
        }
        settleSeconds = try number("DISCERN_NOTIFY_SETTLE_SECONDS", settleSeconds, in: 0...86_400)
        firstRetrySeconds = try number("DISCERN_NOTIFY_RETRY_SECONDS", firstRetrySeconds, in: 0.1...86_400)
        maxRetrySeconds = max(firstRetrySeconds, try number("DISCERN_NOTIFY_MAX_RETRY_SECONDS", maxRetrySeconds, in: 0.1...86_400))
        giveUpAfterSeconds = try number("DISCERN_NOTIFY_GIVE_UP_HOURS", giveUpAfterSeconds / 3600, in: 0.001...720) * 3600
    }

    /// The pause after the `attempt`-th failed try (1 for the first).
    public func retryDelay(afterAttempt attempt: Int) -> Double {
        min(maxRetrySeconds, firstRetrySeconds * pow(2, Double(max(0, min(attempt - 1, 30)))))
    }
}
