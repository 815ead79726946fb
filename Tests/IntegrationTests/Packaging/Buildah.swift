import Foundation

/// Runs a command in a buildah working container (chroot isolation, as scripts/oci-image.sh
/// builds with).
///
/// buildah starts a chroot run by re-executing itself from a copy it seals in memory, and the
/// kernel now and then refuses that seal with EBUSY (5 copies in 3,000 on a busy machine here;
/// a run makes two). buildah then exits before the command starts: that failure, and only it,
/// is run again.
enum Buildah {
    static let sealRefused = "sealing memfd copy: Device or resource busy"
    static let attempts = 3

    static func run(
        _ container: String, _ command: [String], environment: [String: String] = [:], volumes: [(host: String, image: String)] = []
    ) async throws -> (status: Int32, output: String) {
        let mounts = volumes.flatMap { ["-v", "\($0.host):\($0.image):ro"] }
        let arguments =
            ["run", "--isolation", "chroot"] + mounts + [container, "--", "/usr/bin/env"]
            + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + command
        var attempt = 1
        while true {
            let result = try await Subprocess.runWithStatus("/usr/bin/buildah", arguments)
            guard result.status != 0, result.output.contains(sealRefused), attempt < attempts else { return result }
            print("buildah could not seal its own copy before running \(command.prefix(2).joined(separator: " ")); running it again")
            attempt += 1
        }
    }
}
