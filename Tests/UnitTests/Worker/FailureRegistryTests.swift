import ServiceClients
import ErrorCodes
import Foundation
import Imaging
import JobQueue
import ObjectStorage
import Testing
@testable import Console
@testable import Worker

/// One failure registry (`FailureKind.all`): every kind a job can carry is declared there once,
/// raised from there, and read from there by the worker and the console, so they cannot drift.
@Suite("Failure registry")
struct FailureRegistryTests {
    /// What `failure` costs on attempt `attempt` of 5, as the worker records it.
    static func decide(_ failure: JobFailure, attempt: Int) -> FailureDecision {
        FailureDecision.decide(
            .init(
                kind: failure.kind, outage: failure.outage, attempts: attempt, maxAttempts: 5, handBacks: 0,
                backoffSeconds: failure.retryAfterSeconds ?? 30, maxBackoffSeconds: 600)
        ) { false }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func files(under folder: String, ending suffix: String) -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(folder)
        let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.path.hasSuffix(suffix) }.compactMap { url in
            (try? String(contentsOf: url, encoding: .utf8)).map { (String(url.path.dropFirst(root.path.count + 1)), $0) }
        }
    }

    @Test("each kind is registered once, as a snake_case code with a line for the operator")
    func registeredOnce() {
        let codes = FailureKind.all.map(\.code)
        #expect(Set(codes).count == codes.count, "a code is registered twice")
        for kind in FailureKind.all {
            #expect(kind.code.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }, "\(kind.code)")
            #expect(kind.advice.count > 20 && kind.advice.hasSuffix("."), "\(kind.code): \(kind.advice)")
            #expect(FailureKind.named(kind.code) == kind)
        }
    }

    @Test("no kind is written as a literal outside the registry: not in Sources/, not in sql/")
    func noLiteralKinds() {
        // Single words (`timeout`, `cancelled`, `network`) are also states, labels and words of
        // prose: the kinds that cannot be mistaken are checked as literals, and every kind by
        // the places a kind is given (`kind: "…"`, a code declared with `Self("…")`).
        let distinctive = FailureKind.all.map(\.code).filter { $0.contains("_") }
        var found: [String] = []
        for file in Self.files(under: "Sources", ending: ".swift") where !file.path.hasSuffix("ErrorCodes/FailureKinds.swift") {
            for code in distinctive where file.text.contains("\"\(code)\"") { found.append("\(file.path): \"\(code)\"") }
            if file.text.contains("kind: \"") { found.append("\(file.path): a kind: \"…\" literal") }
            let declaresJobCodes = ["Owner == ImagingError", "Owner == FileAccessError", "Owner == ServiceError"].contains {
                file.text.contains($0)
            }
            if declaresJobCodes && file.text.contains("Self(\"") { found.append("\(file.path): an error code declared as a literal") }
        }
        for file in Self.files(under: "sql", ending: ".sql") {
            for code in distinctive where file.text.contains("'\(code)'") { found.append("\(file.path): '\(code)'") }
            if file.text.range(of: #"error_kind\s*(=|<>|IN)\s*\(?'"#, options: .regularExpression) != nil {
                found.append("\(file.path): an error_kind compared with a literal")
            }
        }
        #expect(found.isEmpty, "kinds written outside Sources/ErrorCodes/FailureKinds.swift:\n\(found.joined(separator: "\n"))")
    }

    @Test("what a failure costs is decided in FailureDecision alone: SQL sets given_back only to what it decided, or to 0 on a retry")
    func oneDecision() {
        var found: [String] = []
        for file in Self.files(under: "sql", ending: ".sql") where !file.path.hasSuffix("schema.sql") && !file.path.contains("migrations/") {
            for match in file.text.matches(of: /given_back\s*=\s*([^,\s]+)/) where match.1 != "0" && !match.1.hasPrefix("$") {
                found.append("\(file.path): given_back = \(match.1)")
            }
        }
        #expect(found.isEmpty, "a statement restates a hand-back rule:\n\(found.joined(separator: "\n"))")
        for file in Self.files(under: "Sources", ending: ".swift") where !file.path.hasSuffix("JobQueue/FailureDecision.swift") {
            if file.text.contains("QueueConstants.maxHandBacks") || file.text.contains("QueueConstants.outageHandBacks") {
                found.append(file.path)
            }
        }
        #expect(found.isEmpty, "the hand-back allowance is read outside FailureDecision:\n\(found.joined(separator: "\n"))")
    }

    @Test("the worker and the console agree on every preparation failure: what the worker retries, the console never blames on the file")
    func workerAndConsoleAgree() {
        let codes: [ImagingError.Code] = [
            .empty, .unsupportedFormat, .undecodable, .truncated, .tooManyPixels, .sourceTooLarge, .tooSmall,
            .cannotFit, .unreadable, .processingFailed, .pathNotAllowed, .fileNotFound, .notRegularFile
        ]
        for code in codes {
            let kind = FailureKind.named(code.rawValue)
            #expect(kind != nil, "\(code) is not in the registry")
            let failure = FilePreparation.failure(ImagingError(code, "x"), path: "/photos/a.jpg", truncatedRetrySeconds: 300)
            let retried = Self.decide(failure, attempt: 2).retryAfterSeconds != nil
            let consoleBlamesFile = JobPage.fileIsTheProblem(code.rawValue)
            #expect(consoleBlamesFile == (kind?.fault == .file), "\(code)")
            if retried { #expect(!consoleBlamesFile, "the worker retries \(code), the console says retrying will not help") }
        }
        // The disagreement the registry ended: a file the worker could not read is the system's.
        #expect(!JobPage.fileIsTheProblem("image_unreadable") && FailureKind.imageUnreadable.fault == .system)
        #expect(JobPage.fileIsTheProblem("image_undecodable"))
        #expect(!JobPage.fileIsTheProblem("a_kind_of_another_release"))
    }

    @Test("the registry's attempt rule is what the worker does with a file it could not read: the last attempt is handed back")
    func attemptRuleApplied() {
        let unreadable = FilePreparation.failure(ImagingError(.unreadable, "Input/output error"), path: "/p", truncatedRetrySeconds: 1)
        #expect(FailureKind.imageUnreadable.attempt == .lastHandBack && !Self.decide(unreadable, attempt: 5).spent)
        let truncated = FilePreparation.failure(ImagingError(.truncated, "cut"), path: "/p", truncatedRetrySeconds: 1)
        #expect(FailureKind.imageTruncated.retry == .once && Self.decide(truncated, attempt: 2).isDead)
    }

    @Test("docs/design.md's table of kinds is the registry, row for row")
    func docsTableIsTheRegistry() throws {
        let design = try String(contentsOf: Self.root.appendingPathComponent("docs/design.md"), encoding: .utf8)
        let rows = design.components(separatedBy: "\n").drop { !$0.hasPrefix("<!-- failure-kinds: generated") }.dropFirst(3)
            .prefix { !$0.hasPrefix("<!-- failure-kinds: end") }
        let retried: [FailureKind.Retry: String] = [.never: "no", .once: "once, later", .yes: "yes"]
        let expected = FailureKind.all.map { kind in
            "| `\(kind.code)` | \(kind.fault.rawValue) | \(retried[kind.retry] ?? "") | \(kind.attempt.rawValue) | \(kind.breaker.rawValue) | \(kind.advice) |"
        }
        #expect(Array(rows) == expected, "docs/design.md, \"Errors\", should read:\n\(expected.joined(separator: "\n"))")
    }

    @Test(
        "a service's failure is retried, and tells the breaker, as its kind's row says: an answer this release cannot read is not asked again, a garbled one is"
    )
    func serviceFailuresFollowTheirRows() {
        let codes: [ServiceError.Code] = [
            .rateLimited, .serverError, .clientError, .network, .tlsFailed, .timeout, .uploadExpired, .uploadRejected,
            .destinationRefused, .analysisFailed, .badResponse, .serviceIncompatible, .unsupportedAction, .badParams,
            .authFailed, .inputRejected, .rateLimiterUnavailable, .misconfigured, .notStarted, .responseTooLarge,
            .slotMissed, .cancelled, .capReached, .internalError
        ]
        for code in codes {
            let row = FailureKind.named(code.rawValue)
            #expect(row != nil, "\(code) is not in the registry")
            let error = ServiceError(code, "x")
            #expect(error.isRetryable == (row?.retry != .never), "\(code)")
        }
        #expect(!ServiceError(.serviceIncompatible, "x").isRetryable && ServiceError(.serviceIncompatible, "x").serviceSignal == .up)
        #expect(ServiceError(.badResponse, "x").isRetryable && ServiceError(.badResponse, "x").serviceSignal == .down)
        // A finer kind's row decides over its code's: Azure's expired faceId is detected again.
        #expect(ServiceError(.inputRejected, "x", kind: .azureFaceNotFound).isRetryable)
    }

    @Test("a bucket that does not exist is the system's, named so; a missing object is the file's")
    func missingBucketIsNotTheFiles() {
        let bucket = FilePreparation.failure(ObjectStorageError(.noSuchBucket, "bucket fleet does not exist"))
        #expect(bucket.kind == .bucketNotFound && Self.decide(bucket, attempt: 1).isDead && bucket.kind.fault == .system)
        #expect(!JobPage.fileIsTheProblem(bucket.kind.code))
        let object = FilePreparation.failure(ObjectStorageError(.noSuchKey, "no such key"))
        #expect(object.kind == .fileNotFound && JobPage.fileIsTheProblem(object.kind.code))
    }
}
