import Foundation

/// Which run of the test command this process belongs to (`DISCERN_TEST_RUN`, set by
/// scripts/test.sh), named in what the tests make outside their temporary folders (memory
/// cgroups, mounted disks), so a run's clean-up takes back its own and never another's: a
/// flake-finder loop and a targeted run side by side leave each other's cgroups alone.
enum TestRun {
    static let id = ProcessInfo.processInfo.environment["DISCERN_TEST_RUN"].flatMap { $0.isEmpty ? nil : $0 } ?? "solo"
}
