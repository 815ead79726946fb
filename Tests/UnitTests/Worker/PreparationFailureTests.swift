import ErrorCodes
import Imaging
import JobQueue
import Testing
@testable import Worker

/// What a preparation's failure makes of a job's attempt: the photo's faults end it, the
/// night's weather (a volume failing reads, memory or disk running out) does not.
@Suite("Preparation failures")
struct PreparationFailureTests {
    static func failure(_ error: ImagingError, attempt: Int) -> JobFailure {
        FilePreparation.failure(error, path: "/photos/a.jpg", attempt: attempt, maxAttempts: 5, truncatedRetrySeconds: 300)
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
        let early = Self.failure(unreadable, attempt: 2)
        #expect(early.isRetryable && early.countsAsAttempt && !early.lastAttemptOfOutage)
        let last = Self.failure(unreadable, attempt: 5)
        #expect(last.isRetryable && !last.countsAsAttempt && last.lastAttemptOfOutage && last.kind == .imageUnreadable, "\(last)")
        let undecodable = Self.failure(ImagingError(.undecodable, "the jpeg file cannot be decoded"), attempt: 1)
        #expect(!undecodable.isRetryable && undecodable.countsAsAttempt)
        let truncated = Self.failure(ImagingError(.truncated, "cut"), attempt: 1)
        #expect(truncated.isRetryable && truncated.retryAfterSeconds == 300)
    }
}
