import ArgumentParser
import ServiceClients
import Postgres

/// A service a job can name, from ServiceClients' registry: `--help` lists the values and shell
/// completions offer them.
struct ServiceChoice: ExpressibleByArgument, Sendable, Hashable, CustomStringConvertible {
    let service: RemoteService
    var rawValue: String { service.name }
    var description: String { service.name }

    init?(argument: String) {
        guard let service = Services.named(argument) else { return nil }
        self.service = service
    }

    init?(rawValue: String) { self.init(argument: rawValue) }

    static let discerner = ServiceChoice(argument: Services.discerner.name)!
    static var allValueStrings: [String] { Services.names }
    static var defaultCompletionKind: CompletionKind { .list(Services.names) }
    var defaultValueDescription: String { service.name }

    static func == (left: Self, right: Self) -> Bool { left.rawValue == right.rawValue }
    func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}

/// A service that takes images, so has an image policy (`discern prepare`).
struct ImageServiceChoice: ExpressibleByArgument, Sendable, CustomStringConvertible {
    let service: RemoteService
    var description: String { service.name }

    init?(argument: String) {
        guard let service = Services.named(argument), service.imagePolicy != nil else { return nil }
        self.service = service
    }

    static let discerner = ImageServiceChoice(argument: Services.discerner.name)!
    static var allValueStrings: [String] { Services.all.filter { $0.imagePolicy != nil }.map(\.name) }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
    var defaultValueDescription: String { service.name }
}

/// How a listing command prints: an aligned table for people, JSON for scripts.
enum OutputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case table, json
}

/// The job states of discern.jobs.
enum JobStateChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case available, running, succeeded, dead, cancelled
}

/// How the database URL reaches PostgreSQL (`Postgres.PoolMode`).
enum PoolModeChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case direct, transaction
    var poolMode: PoolMode { self == .direct ? .direct : .transaction }
}
