import ArgumentParser
import BuildInfo
import CurlHTTP
import Foundation
import Imaging
import JobQueue
import Postgres

/// `discern version` (and `--version`): what this binary is and what it runs with, for a bug
/// report or an upgrade plan. The libraries' versions are asked of the libraries themselves.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "The release and commit, the Swift it was built with, the libvips, libpq and libcurl it runs with, and its schema.")

    @Option(help: "text for people, json for scripts.")
    var format: VersionFormat = .text

    func run() throws {
        let report = VersionReport.current
        switch format {
        case .text: print(report.text)
        case .json: try JSONOutput.print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        }
    }
}

enum VersionFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
    case text, json
}

struct VersionReport: Codable {
    struct Libraries: Codable {
        let libvips: String
        let libpq: String
        let libcurl: String
        let tls: String?
    }

    struct SchemaVersions: Codable {
        /// The newest migration this binary carries (`discern migrate` brings a database there).
        let carries: Int
        /// The oldest schema its workers run against: every migration it carries must be applied.
        let runsAgainstAtLeast: Int
        /// The oldest schema it migrates from.
        let migratesFrom: Int
    }

    let version: String
    /// The release `version` is, or builds on (`version` up to its `+`).
    let release: String
    let commit: String
    let swift: String
    let libraries: Libraries
    let schema: SchemaVersions

    static var current: VersionReport {
        VersionReport(
            version: BuildInfo.version, release: BuildInfo.release, commit: BuildInfo.commit, swift: BuildInfo.swiftVersion,
            libraries: Libraries(libvips: Vips.libraryVersion, libpq: Connection.libraryVersion, libcurl: CurlLibrary.version, tls: CurlLibrary.tls),
            schema: SchemaVersions(
                carries: Migrator.schemaVersion, runsAgainstAtLeast: Migrator.schemaVersion, migratesFrom: Migrator.oldestMigratable))
    }

    var text: String {
        """
        discern \(version) (commit \(commit)), built with Swift \(swift)
        runs with libvips \(libraries.libvips), libpq \(libraries.libpq), libcurl \(libraries.libcurl)\(libraries.tls.map { " (\($0))" } ?? "")
        schema \(schema.carries): its workers need every migration up to \(schema.runsAgainstAtLeast); it migrates databases from \(schema.migratesFrom) on
        """
    }
}
