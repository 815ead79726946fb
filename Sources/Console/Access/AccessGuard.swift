import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Who may use the console, and the headers every answer carries.
///
/// First, a request must name one of the hosts the console was started for
/// (`ConsoleConfiguration.allowedHosts`): a page on another site that points its own name at
/// 127.0.0.1 (DNS rebinding) gets nothing, not even the sign-in page. Then it is allowed with
/// the access token (`Authorization: Bearer …`, or the session cookie the sign-in page sets),
/// or, with no token configured, when it comes from 127.0.0.1 itself with no proxy header at all
/// (a proxy on this machine could be relaying anyone). A reverse proxy's user header names the
/// user only on a request that carries a token. Everything else gets 401 and the sign-in page.
///
/// Then the role (docs/console.md, "Who may act"): the token's (DISCERN_CONSOLE_TOKEN is admin,
/// the operator and viewer tokens what they say), lowered to what the role map gives the proxy's
/// user, and to viewer on a --read-only console; 127.0.0.1 without a token is admin. An action
/// its role does not allow answers 403, and the refusal is logged with who tried. An action also
/// needs the CSRF token of its form, and an Origin, if sent, naming this host.
struct AccessGuard: RouterMiddleware {
    typealias Context = ConsoleContext
    static let cookie = "discern_console"
    let secrets: Secrets
    let trustedUserHeader: HTTPField.Name?
    let allowedHosts: Set<String>
    /// The proxy's users' roles; nil: the token's role for everyone.
    let roleMap: RoleMap?
    /// Everyone a viewer (--read-only).
    let readOnly: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A probe (a load balancer's, Kubernetes') asks by the pod's address and without a token;
        // the answer says nothing but whether the console can reach PostgreSQL.
        if request.uri.path == "/healthz" { return Self.secured(try await next(request, context)) }
        guard let host = Self.hostName(request.head.authority), allowedHosts.contains(host) else {
            return Self.secured(
                Response(
                    status: .misdirectedRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: .init(
                        byteBuffer: .init(
                            string: "This console answers only for \(allowedHosts.sorted().joined(separator: ", ")) (see --public-url).\n"))))
        }
        var context = context
        let path = request.uri.path
        let open = path.hasPrefix("/static/") || path == "/login"
        if !open {
            guard let (user, role) = user(request, context) else {
                return Self.secured(
                    Response(
                        status: .unauthorized, headers: [.contentType: "text/html; charset=utf-8"],
                        body: .init(byteBuffer: .init(string: SignIn.page(message: "Sign in with the console's token.")))))
            }
            context.user = user
            context.role = readOnly ? .viewer : role
            // The router ignores empty path parts (//actions/retry/ is /actions/retry): so does the check.
            if request.method == .post, let needed = Actions.role(Self.routed(path)), context.role < needed {
                context.logger.notice(
                    "console action refused", metadata: ["path": "\(path)", "user": "\(user)", "role": "\(context.role)", "needs": "\(needed)"])
                return Self.secured(
                    Response(
                        status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                        body: .init(byteBuffer: .init(string: Self.refusal(context.role, needed)))))
            }
        }
        var response = try await next(request, context)
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return Self.secured(response)
    }

    /// Who asks and in which role: a token's holder, the proxy's user (never above the token the
    /// proxy sends), or this machine itself.
    private func user(_ request: Request, _ context: Context) -> (String, ConsoleRole)? {
        let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let tokenRole = secrets.role(ofToken: bearer)
        if let role = tokenRole ?? secrets.sessionRole(Self.cookieValue(request)) {
            // Only the proxy's own token (the admin token, as a bearer) names a user: a person
            // holding the operator token must not sign the operator log with a colleague's name.
            if tokenRole == .admin, let trustedUserHeader, let name = request.headers[trustedUserHeader], !name.isEmpty {
                let user = String(name.prefix(200))
                return (user, min(role, roleMap?.role(of: user) ?? role))
            }
            return (role == .admin ? "token" : "\(role) token", role)
        }
        if !secrets.hasTokens, context.isLoopback, !Self.isProxied(request) { return ("local", .admin) }
        return nil
    }

    /// A path as the router matches it: empty parts dropped.
    static func routed(_ path: String) -> String {
        "/" + path.split(separator: "/").joined(separator: "/")
    }

    static func refusal(_ role: ConsoleRole, _ needed: ConsoleRole) -> String {
        "This needs the \(needed) role; you are signed in as \(role == .viewer ? "a viewer" : "an \(role)"). Ask whoever runs the console (docs/console.md, \"Who may act\").\n"
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
        response.headers[.contentSecurityPolicy] =
            "default-src 'none'; connect-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.init("Referrer-Policy")!] = "same-origin"
        return response
    }
}

/// The sign-in page: one field for the token; the session cookie it sets is HttpOnly,
/// SameSite=Strict, expires (`Secrets.sessionSeconds`), and is Secure under https.
enum SignIn {
    static func page(message: String) -> String {
        Page(
            title: "Sign in", active: "",
            body: """
                <p>\(message)</p>
                <form method="post" action="/login"><label>token <input type="password" name="token" autocomplete="current-password"></label>
                <button type="submit" class="primary">Sign in</button></form>
                """, live: false
        ).render(readOnly: false)
    }
}
