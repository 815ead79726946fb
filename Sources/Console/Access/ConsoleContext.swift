import Hummingbird
import NIOCore

/// Each request's context: who asked (from the socket, for the loopback rule) and as whom
/// and in which role (filled in by `AccessGuard`; the user is recorded with every action).
public struct ConsoleContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public var user = "local"
    /// What this user may do (AccessGuard): nothing until access is decided.
    public var role = ConsoleRole.viewer

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// 127.0.0.1 or ::1 exactly: 127.0.0.2 and the rest of 127/8 count as remote, so a test
    /// can be "remote" on one machine.
    var isLoopback: Bool {
        guard let address = remoteAddress?.ipAddress else { return false }
        return address == "127.0.0.1" || address == "::1" || address == "::ffff:127.0.0.1"
    }
}
