import MediaFiles
import ArgumentParser
import ServiceClients
import Console
import QueueReads
import Foundation
import JobQueue
import ObjectStorage
import Logging
import Postgres
import ServiceLifecycle
import UnixSignals

struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Serve the web console: the night's work, the photos beside what the service read, retries and review.",
        discussion:
            "docs/console.md. Binds 127.0.0.1 by default; anything else needs DISCERN_CONSOLE_TOKEN. Beyond this machine, serve it through a TLS reverse proxy and name its address with --public-url."
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LogOptions

    @OptionGroup var host: SettingFlag<ConsoleSettingSpecs.Host>
    @OptionGroup var port: SettingFlag<ConsoleSettingSpecs.Port>

    @Option(
        name: .customLong("path-root"),
        help: "A folder thumbnails may be read from (repeatable). Default: $DISCERN_PATH_ROOTS. Required.")
    var pathRoots: [String] = []

    @Option(help: "A reverse proxy's header naming the signed-in user (e.g. X-Forwarded-User), believed only with the token, which the proxy sends.")
    var trustedUserHeader: String?

    @Option(
        help:
            "The address people use, e.g. https://discern.example.org/ (its host is served; https makes cookies Secure). Default: $DISCERN_CONSOLE_PUBLIC_URL."
    )
    var publicURL: String?

    @Option(
        help:
            "The reverse proxy's users and their roles: NAME=ROLE,..., ROLE viewer, operator or admin, * for everyone else (viewer when not given). Needs --trusted-user-header. Default: $DISCERN_CONSOLE_ROLES."
    )
    var roles: String?

    @Flag(help: "Everyone a viewer: no actions (no retry, cancel or review), no raw answers; works as the discern_reader role.")
    var readOnly = false

    @Option(
        help:
            "The review page lists results read with less confidence than this: 0-1, or auto (the threshold the audit measurements recommend for licence plates at 2 % wrong after review, the last 30 days; 0.8 until they can promise it; docs/console.md)."
    )
    var reviewBelow: String = "0.8"

    @OptionGroup var refreshSeconds: SettingFlag<ConsoleSettingSpecs.RefreshSeconds>

    func run() async throws {
        let roots = try Setting.pathRoots(pathRoots), buckets = try Setting.objectRoots(pathRoots)
        guard roots != nil || !buckets.isEmpty else {
            throw SettingError("set the folders (or buckets) thumbnails may be read from: --path-root /photos or DISCERN_PATH_ROOTS")
        }
        var (knobbed, _) = try SettingFlags.apply(self, to: ConsoleSettingSpecs.Settings.defaults)
        knobbed.console.roots = roots ?? PathRoots(merging: [])
        if !buckets.isEmpty {
            knobbed.console.objects = ObjectReader(store: try Setting.objectStore(), allowed: buckets)
        }
        var settings = knobbed.console
        do {
            let environment = ServiceEnvironment(Setting.environment)
            settings.accessToken = try environment.secret("DISCERN_CONSOLE_TOKEN")?.plainText
            settings.operatorToken = try environment.secret("DISCERN_CONSOLE_OPERATOR_TOKEN")?.plainText
            settings.viewerToken = try environment.secret("DISCERN_CONSOLE_VIEWER_TOKEN")?.plainText
        } catch { throw SettingError(error.description) }
        if let text = roles ?? Setting.present("DISCERN_CONSOLE_ROLES") {
            switch RoleMap.parse(text) {
            case .success(let map): settings.roleMap = map
            case .failure(let problem): throw SettingError(problem.description)
            }
        }
        settings.trustedUserHeader = trustedUserHeader
        if let url = publicURL ?? Setting.present("DISCERN_CONSOLE_PUBLIC_URL") {
            guard let parsed = URL(string: url) else { throw SettingError("--public-url \(url) is not a URL") }
            settings.publicURL = parsed
        }
        settings.readOnly = readOnly
        guard let threshold = ReviewThreshold(argument: reviewBelow) else { throw SettingError("--review-below must be from 0 to 1, or auto") }
        settings.reviewBelow = threshold
        settings.services = Services.names
        if let problem = settings.problem { throw SettingError(problem) }

        let logger = logging.makeLogger("discern.console")
        try await Database(conninfo: database.conninfo, name: "discern-preflight").withConnection { try Migrator.requireCurrent($0) }
        let store = try await QueueReader(conninfo: database.conninfo)
        let changes = ChangeFeed(
            conninfo: database.conninfo,
            safetyNetSeconds: knobbed.refreshSeconds)
        let writes = Database(conninfo: database.conninfo, name: "discern-console-actions")
        let server = ConsoleServer.application(store: store, writes: writes, changes: changes, configuration: settings, logger: logger)
        // The feed after the server: it stops first, ending the open pages' event streams.
        try await ServiceGroup(configuration: .init(services: [server, changes], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)).run()
    }
}

/// `discern console`'s one-value settings, declared as `discern work`'s are (SettingFlag.swift); the
/// defaults are ConsoleConfiguration's and the change feed's.
enum ConsoleSettingSpecs {
    struct Settings: SettingsRoot, Sendable {
        /// Path roots come from `--path-root` (required): none until then.
        var console = ConsoleConfiguration(roots: PathRoots(merging: []))
        var refreshSeconds = ChangeFeed.defaultSafetyNetSeconds
        static let defaults = Settings()
    }

    enum Host: TextSetting {
        static let flag = "host", variable: String? = "DISCERN_CONSOLE_HOST"
        static let summary = "Address to listen on"
        static let keyPath = \Settings.console.host
    }

    enum Port: IntegerSetting {
        static let flag = "port", variable: String? = "DISCERN_CONSOLE_PORT", range = 0...65535
        static let summary = "Port, 0-65535 (0 picks one; it is logged)"
        static let keyPath = \Settings.console.port
    }

    enum RefreshSeconds: IntegerSetting {
        static let flag = "refresh-seconds", variable: String? = "DISCERN_CONSOLE_REFRESH_SECONDS", range = 1...86_400
        static let summary =
            "Seconds after which open pages refresh even though no change was announced (a worker falling silent, a lease running out), 1-86400"
        static let keyPath = \Settings.refreshSeconds
    }
}
