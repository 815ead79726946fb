import Foundation

/// Who hears that a batch is done, and how hard discern tries (docs/configuration.md,
/// "Webhooks"). Read from the environment or the configuration file, as the services'
/// settings are, and checked at start: a bad URL or number stops the worker with one line.
public struct WebhookSettings: Sendable {
    public var destinations: [WebhookDestination] = []
    /// Signs every webhook (`WebhookSignature`); without one they go unsigned.
    public var secret: Secret?
    /// The console's address as people reach it: the webhook links to the batch's report.
    public var consoleURL: String?
    /// A batch is announced once none of its jobs has finished for this long, so photos that
    /// trickle in, each done before the next arrives, make one webhook, not one each.
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

    /// Reads `DISCERN_WEBHOOK_*`, or where one is not set its name before 0.11,
    /// `DISCERN_NOTIFY_*` (docs/configuration.md): "notify" is PostgreSQL's word here now.
    public init(_ environment: ServiceEnvironment) throws(ServiceError) {
        /// The variable set under its name, or else under its former name: the name to show with its value.
        func setting(_ suffix: String) -> (name: String, text: String)? {
            for name in ["DISCERN_WEBHOOK_" + suffix, "DISCERN_NOTIFY_" + suffix] {
                if let text = environment.value(name) { return (name, text) }
            }
            return nil
        }
        let allowed = Set(
            (setting("ALLOW_HOSTS")?.text ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() })
        destinations = try WebhookDestination.list(setting("URLS")?.text ?? "", allowedHosts: allowed)
        secret = try environment.secret("DISCERN_WEBHOOK_SECRET")
        if secret == nil { secret = try environment.secret("DISCERN_NOTIFY_SECRET") }
        if let url = environment.value("DISCERN_CONSOLE_PUBLIC_URL") {
            consoleURL = try ConfigurationValue.serviceURL(url, name: "DISCERN_CONSOLE_PUBLIC_URL")
        }
        func number(_ suffix: String, _ fallback: Double, in range: ClosedRange<Double>) throws(ServiceError) -> Double {
            guard let found = setting(suffix) else { return fallback }
            return try ConfigurationValue.number(found.text, name: found.name, in: range)
        }
        settleSeconds = try number("SETTLE_SECONDS", settleSeconds, in: 0...86_400)
        firstRetrySeconds = try number("RETRY_SECONDS", firstRetrySeconds, in: 0.1...86_400)
        maxRetrySeconds = max(firstRetrySeconds, try number("MAX_RETRY_SECONDS", maxRetrySeconds, in: 0.1...86_400))
        giveUpAfterSeconds = try number("GIVE_UP_HOURS", giveUpAfterSeconds / 3600, in: 0.001...720) * 3600
    }

    /// The pause after the `attempt`-th failed try (1 for the first).
    public func retryDelay(afterAttempt attempt: Int) -> Double {
        min(maxRetrySeconds, firstRetrySeconds * pow(2, Double(max(0, min(attempt - 1, 30)))))
    }
}
