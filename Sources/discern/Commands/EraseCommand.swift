import ArgumentParser
import Foundation
import JobQueue
import Postgres
import QueueReads

struct EraseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract: "Erase everything discern holds about a person, a plate or a photo, and have the services delete their copies.",
        discussion: """
            Removes results (with entities and reviews), jobs, trial answers and every mention elsewhere in one transaction; \
            asks OOTO to delete the template and Azure Face the person, as jobs with the usual retries, until they have. The \
            log keeps the key only as a salted digest. Needs the discern_erase role (or the schema's owner). Examples: \
            discern erase --subject person-07 --dry-run; discern erase --plate "RHF 3168"; discern erase --status
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "A subject: an OOTO templateId or an Azure personId.")
    var subject: String?

    @Option(help: "A licence plate (compared without case, spaces or dashes).")
    var plate: String?

    @Option(help: "A photo's path, as stored.")
    var photo: String?

    @Option(help: "A photo's SHA-256 (64 hex digits), as discern enqueue keys content.")
    var content: String?

    @Flag(help: "Count what would be removed and which services would be asked; change nothing.")
    var dryRun = false

    @Flag(help: "List the erasure requests and their steps instead (the newest 50).")
    var status = false

    @Flag(help: "With --status: only those still in progress.")
    var open = false

    @Option(help: "table or json.")
    var format: OutputFormat = .table

    func validate() throws {
        let keys = [subject, plate, photo, content].compactMap { $0 }
        if status {
            guard keys.isEmpty, !dryRun else { throw ValidationError("--status lists requests: give no key and no --dry-run") }
        } else {
            guard keys.count == 1 else { throw ValidationError("name one thing to erase: --subject, --plate, --photo or --content") }
        }
    }

    func run() async throws {
        let db = Database(conninfo: database.conninfo, name: "discern-erase")
        if status {
            try await db.withConnection { try Erasures.advance($0) }
            let list = try await database.reader().erasureLog(openOnly: open)
            if format == .json { return try JSONOutput.printView(list) }
            return print(ErasureText.status(list))
        }
        let (kind, key): (Erasures.Kind, String) =
            if let subject { (.subject, subject) } else if let plate { (.plate, plate) } else if let photo { (.photo, photo) } else {
                (.content, content ?? "")
            }
        let dryRun = self.dryRun, by = PauseCommand.operator
        let outcome = try await db.withConnection { try Erasures.erase(kind, key, dryRun: dryRun, by: by, on: $0) }
        var request: ErasureLog.Request?
        if let id = outcome.requestID { request = try await database.reader().erasureLog().requests.first { $0.id == id } }
        if format == .json {
            return try JSONOutput.printView(
                ErasureReport(
                    dryRun: dryRun, requestId: outcome.requestID, state: request?.state,
                    parts: Dictionary(outcome.parts.map { ($0.part, $0.rows) }, uniquingKeysWith: +)))
        }
        print(ErasureText.outcome(outcome, kind: kind, dryRun: dryRun, request: request))
    }
}

/// What `discern erase --format json` prints: a request id and state are null for a dry run.
struct ErasureReport: Encodable {
    let dryRun: Bool
    let requestId: Int?
    let state: String?
    let parts: [String: Int]

    private enum CodingKeys: String, CodingKey { case dryRun, requestId, state, parts }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(requestId, forKey: .requestId)
        try container.encode(state, forKey: .state)
        try container.encode(parts, forKey: .parts)
    }
}

/// Erasures as a person reads them.
enum ErasureText {
    static func outcome(_ outcome: Erasures.Outcome, kind: Erasures.Kind, dryRun: Bool, request: ErasureLog.Request?) -> String {
        let rows = outcome.parts.filter { !$0.part.hasPrefix("service: ") }
        let services = outcome.parts.filter { $0.part.hasPrefix("service: ") }.map { String($0.part.dropFirst("service: ".count)) }
        let removed = rows.isEmpty ? "nothing held" : rows.map { "\($0.rows) \($0.part)" }.joined(separator: ", ")
        guard !dryRun, let request else {
            return "dry run, nothing changed: would remove \(removed)"
                + (services.isEmpty ? "; no service holds a copy" : "; would ask: \(services.joined(separator: ", "))")
        }
        let head = "erasure \(request.id) of a \(kind.rawValue) (digest \(request.keyDigest.prefix(12))…): removed \(removed)"
        if services.isEmpty { return head + "; no service holds a copy; done" }
        return head + "; asked: \(services.joined(separator: ", ")); "
            + (request.state == "done" ? "done" : "in progress until the services have deleted theirs (discern erase --status)")
    }

    static func status(_ status: ErasureLog) -> String {
        guard !status.requests.isEmpty else { return "no erasure request" }
        return TextTable.render(
            headers: ["erasure", "key", "asked by", "asked", "state", "removed", "services"],
            rows: status.requests.map { request in
                [
                    "\(request.id)", "\(request.keyKind) \(request.keyDigest.prefix(12))…", request.requestedBy, ViewText.time(request.requestedAt),
                    request.state + (request.finishedAt.map { " \(ViewText.time($0))" } ?? ""),
                    request.removed.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "),
                    request.steps.isEmpty ? "-" : request.steps.map(step).joined(separator: "; ")
                ]
            })
    }

    static func step(_ step: ErasureLog.Request.Step) -> String {
        let name = "\(step.service) \(step.action)"
        if step.state == "done" { return "\(name): \(step.outcome ?? "done") \(ViewText.time(step.doneAt))" }
        let trouble = (step.jobErrorKind ?? step.lastErrorKind).map { ", refused as \($0), round \(step.rounds)" } ?? ""
        return "\(name): waiting (job \(step.jobState ?? "being made")\(step.jobAttempts.map { ", \($0) attempt(s)" } ?? "")\(trouble))"
    }
}
