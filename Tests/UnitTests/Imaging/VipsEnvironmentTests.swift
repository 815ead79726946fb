import Foundation
import Imaging
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// glibc's setenv may free the environment array under a thread reading it (posix_spawn copying
/// it, libpq's getenv), and libvips starts on a busy process: its start must write nothing.
@Suite struct VipsEnvironmentTests {
    @Test func startingLibvipsLeavesTheEnvironmentAlone() throws {
        // The test runner (scripts/test.sh) sets VIPSHOME before the process starts, as the CLI's
        // main settles it before any thread: from here on, nothing has a reason to write.
        try #require(getenv("VIPSHOME") != nil, "run through scripts/test.sh, which sets VIPSHOME")
        Vips.settleEnvironment()
        let before = environ
        try Vips.initialize()
        #expect(environ == before, "libvips' start replaced the environment array")
        #expect(getenv("VIPS_WARNING") == nil, "libvips' warnings are silenced without setenv")
    }
}
