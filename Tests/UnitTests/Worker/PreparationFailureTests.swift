import ErrorCodes
import Imaging
import JobQueue
import Testing
@testable import Worker

/// What a preparation's failure makes of a job's attempt: the photo's faults end it, the
/// night's weather (a volume failing reads, memory or disk running out) does not.
@Suite("Preparation failures")
struct PreparationFailureTests {
    /// What `error` costs on attempt `attempt` of 5, as the worker prepares and records it.
    static func decide(_ error: ImagingError, attempt: Int) -> (failure: JobFailure, decision: FailureDecision) {
        let failure = FilePreparation.failure(error, path: "/photos/a.jpg", truncatedRetrySeconds: 300)
        let decision = FailureDecision.decide(
            .init(
                kind: failure.kind, outage: failure.outage, attempts: attempt, maxAttempts: 5, handBacks: 0,
                backoffSeconds: failure.retryAfterSeconds ?? 30, maxBackoffSeconds: 600)
        ) { false }
        return (failure, decision)
    }

    @Test("libvips' and the decoders' system errors read as unreadable (retried), an image's own as undecodable")
    func systemErrorsAreWeather() {
        #expect(ImagingError.isSystemFailure("VipsJpeg: Input/output error"))
        #expect(ImagingError.isSystemFailure("unix error: Stale file handle"))
        #expect(
            ImagingError.isSystemFailure(
                "vips__file_open_write: unable to open file \"/tmp/vips-0.v\" for writing\nunix error: No space left on device"))
        #expect(!ImagingError.isSystemFailure("VipsJpeg: Corrupt JPEG data: premature end of data segment"))
        #expect(!ImagingError.isSystemFailure("Not a JPEG file: starts with 0x42 0x42"))
    }

    @Test("an unreadable file counts its attempts, but its last is handed back with a growing wait; an undecodable one ends at once")
    func lastAttemptGivenBack() {
        let unreadable = ImagingError(.unreadable, "libvips could not decode the image: VipsJpeg: Input/output error")
        let early = Self.decide(unreadable, attempt: 2).decision
        #expect(early.spent && early.retryAfterSeconds == 30)
        let last = Self.decide(unreadable, attempt: 5)
        #expect(!last.decision.spent && last.decision.retryAfterSeconds != nil && last.failure.kind == .imageUnreadable, "\(last)")
        let undecodable = Self.decide(ImagingError(.undecodable, "the jpeg file cannot be decoded"), attempt: 1).decision
        #expect(undecodable.spent && undecodable.isDead)
        let truncated = Self.decide(ImagingError(.truncated, "cut"), attempt: 1)
        #expect(truncated.failure.retryAfterSeconds == 300 && truncated.decision.retryAfterSeconds == 300)
    }
}
