/// What this binary is: its release, the commit it was built from (stamped by the StampBuild
/// plugin) and the Swift that compiled it.
public enum BuildInfo {
    /// The release (CHANGELOG.md names each, semantic versions).
    public static let version = "0.10.0"

    /// The commit of the source, `-modified` when tracked files differed from it, `unknown`
    /// when built outside a git checkout without `DISCERN_BUILD_COMMIT`.
    public static let commit = buildCommit

    /// The compiler's version, to the patch level it can tell.
    public static var swiftVersion: String {
        #if compiler(>=6.5)
            return "6.5 or newer"
        #elseif compiler(>=6.4)
            return "6.4"
        #elseif compiler(>=6.3.2)
            return "6.3.2"
        #elseif compiler(>=6.3.1)
            return "6.3.1"
        #elseif compiler(>=6.3)
            return "6.3"
        #elseif compiler(>=6.2)
            return "6.2"
        #elseif compiler(>=6.1)
            return "6.1"
        #else
            return "older than 6.1"
        #endif
    }
}
