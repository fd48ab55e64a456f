// Connects the official TypeScript MCP SDK client to a running Hoplink
// server as a desktop client would: the SDK discovers the authorization
// server from the 401, registers itself, sends the "browser" to the
// authorization endpoint with PKCE and the resource, exchanges the code,
// then lists and calls tools. The browser part (sign-in and consent) is
// played here with fetch and a cookie jar.
//
// Usage: node client.mjs MCP_URL EMAIL PASSWORD
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [mcpURL, email, password] = process.argv.slice(2);
if (!mcpURL || !email || !password) {
  console.error("usage: node client.mjs MCP_URL EMAIL PASSWORD");
  process.exit(2);
}
const redirectURL = "http://127.0.0.1:33418/callback";

function fail(msg) {
  console.error("FAIL: " + msg);
  process.exit(1);
}

// browser is fetch with cookies and without following redirects.
const cookies = new Map();
async function browse(url, init = {}) {
  const headers = new Headers(init.headers || {});
  if (cookies.size > 0) {
    headers.set("Cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "));
  }
  const res = await fetch(url, { ...init, headers, redirect: "manual" });
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const i = pair.indexOf("=");
    cookies.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return { status: res.status, location: res.headers.get("location"), body: await res.text() };
}

function unescape(s) {
  return s.replaceAll("&amp;", "&").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&#34;", '"').replaceAll("&#39;", "'").replaceAll("&quot;", '"');
}

function hiddenFields(page) {
  const form = new URLSearchParams();
  for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.append(unescape(m[1]), unescape(m[2]));
  }
  return form;
}

async function post(url, form) {
  return browse(url, { method: "POST", body: form, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

let authorizationCode;
let sawResource;

// signInAndConsent plays the user: sign in when asked, then allow.
async function signInAndConsent(authorizationURL) {
  sawResource = authorizationURL.searchParams.get("resource");
  let res = await browse(authorizationURL);
  if (res.status === 303 && new URL(res.location, authorizationURL).pathname === "/login") {
    const loginURL = new URL(res.location, authorizationURL);
    const login = await browse(loginURL);
    if (login.status !== 200) fail(`login page: ${login.status}`);
    const form = hiddenFields(login.body);
    form.set("email", email);
    form.set("password", password);
    form.set("return_to", loginURL.searchParams.get("return_to"));
    const signedIn = await post(new URL("/login", authorizationURL), form);
    if (signedIn.status !== 303) fail(`sign-in: ${signedIn.status} ${signedIn.body}`);
    res = await browse(new URL(signedIn.location, authorizationURL));
  }
  if (res.status !== 200) fail(`consent page: ${res.status} ${res.location} ${res.body}`);
  const form = hiddenFields(res.body);
  const org = res.body.match(/<option value="([^"]+)">/);
  if (!org) fail("no organization on the consent page");
  form.set("org_id", org[1]);
  form.set("decision", "allow");
  const answer = await post(new URL("/oauth/authorize", authorizationURL), form);
  if (answer.status !== 303) fail(`consent answer: ${answer.status} ${answer.body}`);
  const back = new URL(answer.location);
  if (!back.searchParams.get("iss")) fail("no iss on the authorization response");
  authorizationCode = back.searchParams.get("code");
  if (!authorizationCode) fail(`no code: ${back}`);
}

const store = {};
const provider = {
  get redirectUrl() { return redirectURL; },
  get clientMetadata() {
    return {
      client_name: "Node MCP check", redirect_uris: [redirectURL], token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"], response_types: ["code"],
    };
  },
  clientInformation() { return store.client; },
  saveClientInformation(info) { store.client = info; },
  tokens() { return store.tokens; },
  saveTokens(tokens) { store.tokens = tokens; },
  redirectToAuthorization(url) { return signInAndConsent(url); },
  saveCodeVerifier(v) { store.verifier = v; },
  codeVerifier() { return store.verifier; },
};

async function connect() {
  const client = new Client({ name: "node-check", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(mcpURL), { authProvider: provider });
  return { client, transport, done: client.connect(transport) };
}

let { client, transport, done } = await connect();
try {
  await done;
} catch (err) {
  if (!(err instanceof UnauthorizedError)) throw err;
  await transport.finishAuth(authorizationCode);
  ({ client, transport, done } = await connect());
  await done;
}
if (sawResource !== mcpURL) fail(`resource was ${sawResource}, want ${mcpURL}`);
if (!store.tokens?.refresh_token) fail("no refresh token");

const tools = await client.listTools();
const names = tools.tools.map((t) => t.name);
if (!names.includes("create_link")) fail(`tools: ${names}`);
const result = await client.callTool({ name: "list_organizations", arguments: {} });
if (result.isError) fail(`list_organizations: ${JSON.stringify(result.content)}`);
await client.close();
console.log(`ok: ${names.length} tools, list_organizations answered`);
