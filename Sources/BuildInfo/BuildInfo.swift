/// What this binary is: its version and release, the commit it was built from (stamped by the
/// StampBuild plugin) and the Swift that compiled it.
public enum BuildInfo {
    /// The version this build carries (scripts/build-version.sh): the release, CHANGELOG.md's
    /// newest section, when built from the commit that section names or while it names none;
    /// after that commit, the release, `+git`, the commit's committer time in UTC and the commit
    /// (`0.10.0+git20261129.011500.99e50dd0a1b2`), which dpkg and apt place after the release
    /// and before the next.
    public static let version = buildVersion

    /// The release this build is or builds on: `version` up to its `+`.
    public static let release = buildRelease

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
