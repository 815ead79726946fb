import Foundation
import QueueReads
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Postgres

/// `discern console`: the pages, their `/api/` JSON twins, thumbnails and actions, served by
/// Hummingbird over the same database the workers use.
public enum ConsoleServer {
    /// `store` reads the pages; `writes`, a connection of the actions' own, carries what an
    /// operator changes.
    public static func application(
        store: QueueReader, writes: Database, changes: ChangeFeed, configuration: ConsoleConfiguration, logger: Logger
    ) -> some ApplicationProtocol {
        let secrets = Secrets(tokens: configuration.tokens.map { Secrets.Token(value: $0.0, role: $0.1) })
        let context = PageContext(signs: { secrets.csrf(user: $0, role: $1) }, services: configuration.services)
        let thumbnails = Thumbnails(roots: configuration.roots, objects: configuration.objects)
        let router = Router(context: ConsoleContext.self)
        router.add(
            middleware: AccessGuard(
                secrets: secrets, trustedUserHeader: configuration.trustedUserHeader.flatMap { HTTPField.Name($0) },
                allowedHosts: configuration.allowedHosts, roleMap: configuration.roleMap,
                readOnly: configuration.readOnly))
        let pages = Routes(store: store, context: context, reviewBelow: configuration.reviewBelow)
        pages.register(on: router)
        router.get("/thumbnails/:result") { request, requestContext -> Response in
            let id = try requestContext.parameters.require("result", as: Int.self)
            guard let path = try await store.imagePath(resultID: id) else { throw HTTPError(.notFound) }
            return try await thumbnail(path, request, requestContext, thumbnails: thumbnails)
        }
        router.get("/thumbnails/jobs/:job") { request, requestContext -> Response in
            let id = try requestContext.parameters.require("job", as: Int.self)
            guard let path = try await store.imagePath(jobID: id) else { throw HTTPError(.notFound) }
            return try await thumbnail(path, request, requestContext, thumbnails: thumbnails)
        }
        @Sendable func health() async -> Response {
            let up = await store.isReachable()
            return Response(
                status: up ? .ok : .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: up ? "ok\n" : "PostgreSQL does not answer\n")))
        }
        router.get("/events") { _, _ in EventStream.response(changes) }
        router.get("/healthz") { _, _ in await health() }
        router.head("/healthz") { _, _ in await health().withoutBody }
        router.get("/static/console.js") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "public, max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(string: Script.js)))
        }
        router.get("/static/console.css") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600"],
                body: .init(byteBuffer: ByteBuffer(string: Style.css)))
        }
        router.get("/login") { _, _ in html(SignIn.page(message: "Sign in with the console's token."), status: .ok) }
        router.post("/login") { request, _ -> Response in
            var request = request
            let token = Form.parse(String(buffer: try await request.collectBody(upTo: 4096)))["token"]
            guard let role = secrets.role(ofToken: token), let session = secrets.session(role: role) else {
                return html(SignIn.page(message: "That token is not the console's."), status: .unauthorized)
            }
            var response = Response.redirect(to: "/", type: .normal)
            response.headers[.setCookie] =
                "\(AccessGuard.cookie)=\(session); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(Secrets.sessionSeconds)"
                + (configuration.secureCookies ? "; Secure" : "")
            return response
        }
        // Served on every console: AccessGuard refuses what a role does not allow (403, logged).
        Actions(writes: writes, secrets: secrets, services: configuration.services).register(on: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "discern-console"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                logger.notice("console at http://\(configuration.host):\(port)/", metadata: ["console_port": "\(port)"])
            },
            logger: logger)
    }

    /// A photo's thumbnail as an HTTP answer: the file at `path`, under the path roots.
    private static func thumbnail(_ path: String, _ request: Request, _ context: ConsoleContext, thumbnails: Thumbnails) async throws -> Response {
        let size = request.uri.queryParameters.get("size", as: Int.self) ?? 240
        switch await thumbnails.thumbnail(path: path, size: size, ifNoneMatch: request.headers[.ifNoneMatch]) {
        // Photos of people and plates: kept by no cache, the browser's included.
        case .image(let data, let etag):
            return Response(
                status: .ok, headers: [.contentType: "image/jpeg", .eTag: etag, .cacheControl: "private, no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        case .notModified(let etag):
            return Response(status: .notModified, headers: [.eTag: etag, .cacheControl: "private, no-store"])
        case .busy:
            return Response(status: .serviceUnavailable, headers: [.retryAfter: "1"])
        case .unavailable(let why):
            context.logger.info("no thumbnail", metadata: ["path": "\(request.uri.path)", "why": "\(why)"])
            throw HTTPError(.notFound)
        }
    }

    static func html(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

extension Response {
    /// HEAD's answer: GET's status and headers, no body (uptime monitors and link checkers ask HEAD).
    var withoutBody: Response {
        var response = self
        response.body = ResponseBody()
        return response
    }
}
