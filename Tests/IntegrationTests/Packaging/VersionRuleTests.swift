import Foundation
import Testing

/// Which version a build carries (scripts/build-version.sh, which the StampBuild plugin runs):
/// the release on its own commit, and after it a version dpkg and apt place between it and the
/// next release, in the order the commits were made. Checked in a repository of the test's own,
/// with dpkg's own comparison.
@Suite("The version a build carries")
struct VersionRuleTests {
    @Test(
        "the release commit is the release; two commits after it carry two versions apt orders after it, in commit order, before the next release; a shallow clone says the same"
    )
    func commitsAfterARelease() async throws {
        try await TestFolder.with { folder in
            let repository = folder.appendingPathComponent("repo")
            try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
            func git(_ arguments: [String], at date: String = "2026-11-28T05:10:33Z") async throws -> String {
                try await Subprocess.run(
                    "/usr/bin/git", ["-C", repository.path] + arguments,
                    environment: [
                        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date
                    ]
                ).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            func version(_ directory: URL? = nil) async throws -> String {
                try await Subprocess.run(
                    "/bin/sh", [ChaosJobs.repository.appendingPathComponent("scripts/build-version.sh").path, (directory ?? repository).path]
                ).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let changelog = repository.appendingPathComponent("CHANGELOG.md")
            try Data("# Changelog\n\n## [1.2.0] - 2026-11-28\n\n### Added\n- A.\n\n## [1.1.0] - 2026-11-27\n\nCommit: 18f1ed3b4f2a\n".utf8).write(
                to: changelog)
            _ = try await git(["init", "-q"])
            _ = try await git(["add", "-A"])
            _ = try await git(["commit", "-q", "-m", "release 1.2.0"])
            let release = try await git(["rev-parse", "HEAD"])
            #expect(try await version() == "1.2.0", "the release being cut")
            let named = try String(contentsOf: changelog, encoding: .utf8).replacingOccurrences(
                of: "## [1.2.0] - 2026-11-28\n", with: "## [Unreleased]\n\n## [1.2.0] - 2026-11-28\n\nCommit: \(release.prefix(12))\n")
            try Data(named.utf8).write(to: changelog)
            _ = try await git(["commit", "-q", "-am", "1.2.0 names its commit"], at: "2026-11-29T01:15:00Z")
            let first = try await version()
            try Data("more\n".utf8).write(to: repository.appendingPathComponent("file.txt"))
            _ = try await git(["add", "-A"])
            _ = try await git(["commit", "-q", "-m", "after"], at: "2026-11-29T02:00:00Z")
            let second = try await version()
            #expect(first.hasPrefix("1.2.0+git20261129.011500.") && second.hasPrefix("1.2.0+git20261129.020000."), "\(first) \(second)")
            for (lower, higher) in [("1.2.0", first), (first, second), (second, "1.2.1"), (second, "1.3.0")] {
                let compared = try await Subprocess.runWithStatus("/usr/bin/dpkg", ["--compare-versions", lower, "lt", higher])
                #expect(compared.status == 0, "dpkg does not place \(lower) before \(higher)")
            }
            let shallow = folder.appendingPathComponent("shallow")
            _ = try await Subprocess.run("/usr/bin/git", ["clone", "-q", "--depth", "1", "file://\(repository.path)", shallow.path])
            #expect(try await version(shallow) == second, "a shallow clone (CI's) carries the same version")
            _ = try await git(["checkout", "-q", release])
            #expect(try await version() == "1.2.0", "the release commit itself, checked out again")
        }
    }
}
