import ArgumentParser
import Postgres

/// The services a job can name. `ExpressibleByArgument` + `CaseIterable` make `--help` list the
/// values and shell completions offer them.
enum BackendChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case discerner, ooto, azureFace = "azure-face", landmark, unissey
}

/// The services that take images, so have an image policy.
enum ImageBackendChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case discerner, ooto, azureFace = "azure-face", landmark
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
