import ArgumentParser
import Foundation
import JobQueue
import Postgres

/// `discern pause SERVICE` and `discern resume SERVICE`: what the console's Overview buttons do.
struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Stop every worker from claiming a service's jobs (jobs in flight finish; nothing is cancelled) until `discern resume`.",
        discussion:
            "Workers skip it from their next claim (within a second when jobs wait). Example: discern pause discerner --reason 'quota exhausted until 06:00'"
    )

    @OptionGroup var database: DatabaseOptions
    @Argument(help: ArgumentHelp("The service.", valueName: "service"))
    var service: ServiceChoice
    @Option(help: "Why, for the Overview and discern status (at most 500 characters).")
    var reason: String?

    func run() async throws {
        let service = self.service.rawValue, reason = self.reason, by = PauseCommand.operator
        let changed = try await Database(conninfo: database.conninfo).withConnection {
            try Pausing.pause($0, service: service, by: by, reason: reason)
        }
        print(changed ? "paused \(service): workers claim none of its jobs until `discern resume \(service)`" : "\(service) was paused already")
    }

    /// Who, as the console records its user: the login name of whoever ran the command
    /// (retry and cancel record it too).
    static var `operator`: String { "cli:" + (Setting.environment["USER"] ?? ProcessInfo.processInfo.userName) }
}

struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Let workers claim a paused service's jobs again.")

    @OptionGroup var database: DatabaseOptions
    @Argument(help: ArgumentHelp("The service.", valueName: "service"))
    var service: ServiceChoice

    func run() async throws {
        let service = self.service.rawValue
        let by = PauseCommand.operator
        let changed = try await Database(conninfo: database.conninfo).withConnection { try Pausing.resume($0, service: service, by: by) }
        print(changed ? "resumed \(service)" : "\(service) was not paused")
    }
}
