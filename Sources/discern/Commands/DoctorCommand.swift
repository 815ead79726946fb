import ArgumentParser
import ServiceClients
import Foundation
import JobQueue
import MediaFiles
import ObjectStorage
import Postgres

/// `discern doctor`: what a worker started here would use, each part tried: the database and
/// its schema, the path roots, the buckets with the credential source the AWS chain picks
/// (fetched, and a listing of each s3:// root tried with it), the services configured. For an
/// operator inside a pod or on a new host, before the night starts: one line a check, the
/// source named, never a secret.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract:
            "Check what a worker here would use: the database, the path roots, each bucket with its credentials (fetched and tried), the services.",
        discussion: """
            Exit status 0 when every check passed, 1 when one failed. Bucket credentials come from the first source \
            of the AWS chain that is configured (docs/configuration.md, "Bucket credentials"): the check names it, \
            fetches from it and lists one key under each s3:// path root with what it got.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("path-root"), help: "As `discern work` takes it (repeatable). Default: $DISCERN_PATH_ROOTS.")
    var pathRoots: [String] = []

    @Option(help: "text for people, json for scripts.")
    var format: VersionFormat = .text

    struct Check: Codable {
        enum Status: String, Codable { case ok, warning, failed }
        let check: String
        let status: Status
        let detail: String
    }

    struct Report: Codable {
        var checks: [Check] = []
        /// The credential source buckets are read with, when any s3:// root is given.
        var bucketCredentials: String?
        var bucketCredentialKind: String?
    }

    func run() async throws {
        var report = Report()
        report.checks.append(await databaseCheck())
        do {
            let folders = try Setting.pathRoots(pathRoots), buckets = try Setting.objectRoots(pathRoots)
            for root in folders?.roots ?? [] {
                report.checks.append(Check(check: "folder \(root.configured)", status: .ok, detail: "a folder here (\(root.resolved))"))
            }
            if folders == nil && buckets.isEmpty {
                report.checks.append(Check(check: "path roots", status: .failed, detail: "none given: DISCERN_PATH_ROOTS or --path-root"))
            }
            if !buckets.isEmpty { await bucketChecks(buckets, into: &report) }
        } catch {
            report.checks.append(Check(check: "path roots", status: .failed, detail: "\(error)"))
        }
        let services = ServiceEnvironment(Setting.environment).configuredServiceNames
        report.checks.append(
            Check(
                check: "services", status: services.isEmpty ? .failed : .ok,
                detail: services.isEmpty ? "none configured: set DISCERN_DISCERNER_URL (docs/services.md)" : services.joined(separator: ", ")))
        switch format {
        case .text:
            for check in report.checks {
                print("\(check.status.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(check.check): \(TerminalText.safe(check.detail))")
            }
        case .json:
            try JSONOutput.print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        }
        if report.checks.contains(where: { $0.status == .failed }) { throw ExitCode(ExitStatus.someJobsDead) }
    }

    private func databaseCheck() async -> Check {
        do {
            let plan = try await Database(conninfo: database.conninfo, name: "discern-doctor").withConnection { try MigrationPlan.read($0) }
            if plan.newer.contains(where: \.breaking) {
                return Check(check: "database", status: .failed, detail: "a newer discern migrated it with a breaking change: upgrade this one")
            }
            guard plan.isEmpty else {
                return Check(
                    check: "database", status: .warning,
                    detail:
                        "reachable; schema \(plan.appliedVersion.map(String.init) ?? "missing"), this discern carries \(Migrator.schemaVersion): run discern migrate"
                )
            }
            return Check(check: "database", status: .ok, detail: "reachable; schema \(Migrator.schemaVersion), up to date")
        } catch {
            return Check(check: "database", status: .failed, detail: "\(error)")
        }
    }

    /// A key listed under the root, and its first byte read: what the enqueue and the workers do.
    private static func readCheck(_ root: ObjectPrefix, _ store: ObjectStore) async -> Check {
        let name = "bucket \(root)"
        do {
            let page = try await store.list(bucket: root.bucket, prefix: root.prefix, maxKeys: 1)
            guard let first = page.entries.first, let address = ObjectAddress(bucket: root.bucket, key: first.key) else {
                return Check(check: name, status: .ok, detail: "listed: nothing under it yet")
            }
            try await store.readFirstByte(address)
            return Check(check: name, status: .ok, detail: "listed, and read the first byte of \(address)")
        } catch {
            return Check(check: name, status: .failed, detail: error.message)
        }
    }

    /// A key that is not there, asked for: S3 says 404 to a role that may list the bucket and 403
    /// to one that may not, and a 403 for a photo deleted after its enqueue holds the queue.
    private static func missingKeyCheck(_ root: ObjectPrefix, _ store: ObjectStore) async -> Check {
        let name = "missing key under \(root)"
        guard let address = ObjectAddress(bucket: root.bucket, key: root.prefix + ".discern-doctor-\(UUID().uuidString.prefix(8))") else {
            return Check(check: name, status: .warning, detail: "not tried: the prefix is too long for a key")
        }
        do {
            try await store.readFirstByte(address)
            return Check(check: name, status: .warning, detail: "\(address) was read: a key discern made up exists?")
        } catch  where error.code == .noSuchKey {
            return Check(check: name, status: .ok, detail: "answered 404: a photo deleted after its enqueue ends its own job dead")
        } catch  where error.storeCode == "AccessDenied" {
            return Check(
                check: name, status: .warning,
                detail:
                    "answered AccessDenied: give the role s3:ListBucket on the bucket (without an s3:prefix condition), or a photo deleted after its enqueue may hold the queue"
            )
        } catch {
            return Check(check: name, status: .warning, detail: error.message)
        }
    }

    /// The source the chain picks, its credentials fetched, and one key listed under each root.
    private func bucketChecks(_ buckets: [ObjectPrefix], into report: inout Report) async {
        let store: ObjectStore
        do {
            store = try Setting.objectStore()
        } catch {
            report.checks.append(Check(check: "bucket credentials", status: .failed, detail: "\(error)"))
            return
        }
        report.bucketCredentials = store.credentials.source.description
        report.bucketCredentialKind = store.credentials.source.kind
        do {
            let credentials = try await store.credentials.credentials()
            let lasts = credentials.expiration.map { " (expires in \(String(format: "%.0f", $0.timeIntervalSinceNow)) s)" } ?? ""
            report.checks.append(
                Check(
                    check: "bucket credentials", status: .ok,
                    detail: "\(store.credentials.source): access key \(credentials.accessKeyID)\(lasts); region \(store.settings.region)"))
        } catch {
            report.checks.append(Check(check: "bucket credentials", status: .failed, detail: error.message))
            return
        }
        for root in buckets {
            report.checks.append(await Self.readCheck(root, store))
            report.checks.append(await Self.missingKeyCheck(root, store))
        }
    }
}
