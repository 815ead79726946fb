import CVips
import CVipsShim
import DedicatedThreads
import Foundation
import Synchronization

/// Process-wide libvips set-up and error handling.
public enum Vips {
    /// What the process asks of libvips (docs/configuration.md): set by the executable from
    /// its settings before the first image, read once when libvips starts.
    public struct Settings: Sendable {
        /// Threads per image operation; nil: libvips' default, one per core.
        public var concurrency: Int?
        /// ORC vector code, with every pipeline built under one lock (`vectorEnabled`).
        public var vectors: Bool

        public init(concurrency: Int? = nil, vectors: Bool = false) {
            self.concurrency = concurrency
            self.vectors = vectors
        }
    }

    private static let chosen = Mutex(Settings())

    /// Call before the first image: once libvips has started, its settings stay.
    public static func configure(_ settings: Settings) {
        chosen.withLock { $0 = settings }
    }

    private static let initialization: Result<Void, ImagingError> = {
        // Decode problems reach callers as errors; the shim drops libvips' own stderr warnings.
        guard cvipsshim_init("discern") == 0 else {
            return .failure(ImagingError(.libraryFailed, "libvips failed to start: \(takeError())"))
        }
        // Only the loaders for formats discern sniffs may run; magick, pdf, svg and the other
        // loaders libvips marks untrusted are refused outright.
        vips_block_untrusted_set(1)
        cvipsshim_set_vector_enabled(vectorEnabled ? 1 : 0)
        // Each job reads a different image: caching operations only costs memory.
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        // Threads per image operation: libvips' default (one per core) unless
        // DISCERN_VIPS_CONCURRENCY says otherwise. With images in flight on every core, one
        // thread or two make no difference; one image at a time runs much faster on every core
        // (docs/decisions/0003-libvips-settings.md).
        if let wanted = chosen.withLock({ $0.concurrency }), wanted > 0 {
            vips_concurrency_set(Int32(min(wanted, 1024)))
        }
        started.set()
        return .success(())
    }()

    /// ORC (libvips' run-time compiled vector loops) makes a resize about a third cheaper, but
    /// Debian bookworm's orc 0.4.33 compiles and frees its code without a lock (fixed in 0.4.34;
    /// sharp issue #3677), so with it on every pipeline build and drop is serialised
    /// (`VipsBuildLock`). Off by default: the usual preparation resizes nothing (a JPEG is decoded
    /// at the 1/2ⁿ scale it is sent at; a PNG within the limit keeps its size), so ORC gains nothing
    /// there (bench/RESULTS.md: within noise) and no process-wide lock need sit on the hot path.
    /// `DISCERN_VIPS_ORC=1` turns it on, with the lock (docs/decisions/0003-libvips-settings.md).
    /// Fixed at its first read (libvips' start): `configure` comes before.
    static let vectorEnabled = chosen.withLock { $0.vectors }

    /// Makes the one environment write libvips' start would make (VIPSHOME), so that starting it
    /// later, on a busy process, writes nothing: glibc's setenv can free the environment under a
    /// thread reading it (a Process spawn, libpq's connect), which crashed a test run. Call
    /// first thing in `main`, before any thread starts; without it, libvips' start still works.
    public static func settleEnvironment() {
        cvipsshim_settle_environment("discern")
    }

    /// Starts libvips once; later calls return the first outcome.
    public static func initialize() throws(ImagingError) {
        try initialization.get()
    }

    /// Call on a thread libvips did not create before it ends, to free its per-thread state.
    /// Does nothing when libvips never started in this process.
    public static func threadShutdown() {
        if started.isSet { vips_thread_shutdown() }
    }

    private static let started = LockedFlag()

    /// Takes and clears libvips' error text. The buffer is process-global; the copy call reads
    /// and clears it under libvips' own lock.
    /// libvips' failure of `what`, with its error text: `image_unreadable` (retried) when the
    /// text is the system's (the photos' volume failing a read, memory or descriptors running
    /// out, a disk filling under a spilled image), else `image_processing_failed`. Those are the
    /// night's weather, not the photo's.
    package static func failure(_ what: String) -> ImagingError {
        let detail = takeError()
        return ImagingError(ImagingError.isSystemFailure(detail) ? .unreadable : .processingFailed, "\(what): \(detail)")
    }

    package static func takeError() -> String {
        guard let copy = vips_error_buffer_copy() else { return "unknown libvips error" }
        defer { g_free(copy) }
        let text = String(cString: copy).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "unknown libvips error" : text.split(whereSeparator: \.isNewline).joined(separator: "; ")
    }
}

extension Vips {
    /// The libvips this process runs with, as it reports itself ("8.14.1").
    public static var libraryVersion: String { String(cString: vips_version_string()) }
}
