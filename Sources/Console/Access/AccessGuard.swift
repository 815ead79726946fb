import Foundation
import HTTPTypes
import Hummingbird

/// Who may use the console, and the headers every answer carries.
///
/// First, a request must name one of the hosts the console was started for
/// (`ConsoleConfiguration.allowedHosts`): a page on another site that points its own name at
/// 127.0.0.1 (DNS rebinding) gets nothing, not even the sign-in page. Then it is allowed with
/// the access token (`Authorization: Bearer …`, or the session cookie the sign-in page sets),
/// or, with no token configured, when it comes from 127.0.0.1 itself with no proxy header at all
/// (a proxy on this machine could be relaying anyone). A reverse proxy's user header names the
/// user only on a request that carries the token. Everything else gets 401 and the sign-in page.
/// An action (POST) also needs the CSRF token of its form, and an Origin, if sent, naming this host.
struct AccessGuard: RouterMiddleware {
    typealias Context = ConsoleContext
    static let cookie = "discern_console"
    let secrets: Secrets
    let trustedUserHeader: HTTPField.Name?
    let allowedHosts: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A probe (a load balancer's, Kubernetes') asks by the pod's address and without a token;
        // the answer says nothing but whether the console can reach PostgreSQL.
        if request.uri.path == "/healthz" { return Self.secured(try await next(request, context)) }
        guard let host = Self.hostName(request.head.authority), allowedHosts.contains(host) else {
            return Self.secured(Response(status: .misdirectedRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                                         body: .init(byteBuffer: .init(string: "This console answers only for \(allowedHosts.sorted().joined(separator: ", ")) (see --public-url).\n"))))
        }
        var context = context
        let path = request.uri.path
        let open = path.hasPrefix("/static/") || path == "/login"
        if !open {
            guard let user = user(request, context) else {
                return Self.secured(Response(status: .unauthorized, headers: [.contentType: "text/html; charset=utf-8"],
                                             body: .init(byteBuffer: .init(string: SignIn.page(message: "Sign in with the console's token.")))))
            }
            context.user = user
        }
        var response = try await next(request, context)
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return Self.secured(response)
    }

    private func user(_ request: Request, _ context: Context) -> String? {
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        if secrets.isAccessToken(bearer) || secrets.isSession(Self.cookieValue(request)) {
            if let trustedUserHeader, let name = request.headers[trustedUserHeader], !name.isEmpty { return String(name.prefix(200)) }
            return "token"
        }
        if secrets.accessToken == nil, context.isLoopback, !Self.isProxied(request) { return "local" }
        return nil
    }

    /// Any header a proxy adds for the client it relays: the request is not the machine's own.
    static func isProxied(_ request: Request) -> Bool {
        request.headers.contains { field in
            let name = field.name.canonicalName
            return name == "forwarded" || name.hasPrefix("x-forwarded-") || name == "x-real-ip" || name == "x-client-ip"
        }
    }

    /// `Host` without its port, lowercased: `127.0.0.1:8460` → `127.0.0.1`, `[::1]:8460` → `[::1]`.
    static func hostName(_ authority: String?) -> String? {
        guard let authority = authority?.lowercased(), !authority.isEmpty else { return nil }
        if authority.hasPrefix("[") { return authority.firstIndex(of: "]").map { String(authority[...$0]) } }
        return String(authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }

    static func cookieValue(_ request: Request) -> String? {
        guard let header = request.headers[.cookie] else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            if pair.hasPrefix(cookie + "=") { return String(pair.dropFirst(cookie.count + 1)) }
        }
        return nil
    }

    /// No script from anywhere, styles and images from here only, no framing, nothing embedded
    /// by another site.
    static func secured(_ response: Response) -> Response {
        var response = response
        response.headers[.init("Cross-Origin-Resource-Policy")!] = "same-origin"
        response.headers[.contentSecurityPolicy] = "default-src 'none'; connect-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.init("Referrer-Policy")!] = "same-origin"
        return response
    }
}

/// The sign-in page: one field for the token; the session cookie it sets is HttpOnly,
/// SameSite=Strict, expires (`Secrets.sessionSeconds`), and is Secure under https.
enum SignIn {
    static func page(message: String) -> String {
        Page(title: "Sign in", active: "", body: """
            <p>\(message)</p>
            <form method="post" action="/login"><label>token <input type="password" name="token" autocomplete="current-password"></label>
            <button type="submit" class="primary">Sign in</button></form>
            """, live: false).render(readOnly: false)
    }
}
