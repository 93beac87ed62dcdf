// Drives the devstack through the official supabase-js client with the
// queries the original Edge Functions make, and prints one JSON object with
// every result. Inputs (environment): SUPABASE_URL, SUPABASE_ANON_KEY,
// USER_TOKEN (a session token of the seeded instructor Alice).
import { createClient } from "@supabase/supabase-js";

const url = process.env.SUPABASE_URL;
const anonKey = process.env.SUPABASE_ANON_KEY;
const token = process.env.USER_TOKEN;

// Realtime is never used; Node 20 lacks a native WebSocket, which
// supabase-js >= 2.1xx insists on at construction unless a transport is given.
class NoWebSocket {
  constructor() {
    throw new Error("realtime is not used by this check");
  }
}

const client = createClient(url, anonKey, {
  global: { headers: { Authorization: `Bearer ${token}` } },
  auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  realtime: { transport: NoWebSocket },
});

// Only what the Edge Functions look at: data, and the error's code/message.
const pick = ({ data, error, count, status }) => ({
  status,
  data,
  error: error ? { code: error.code ?? null, message: error.message } : null,
  ...(count !== undefined && count !== null ? { count } : {}),
});

const out = {};
out.embedInner = pick(
  await client
    .from("help_requests")
    .select("id,status,created_by,help_queues!inner(name)")
    .eq("class_id", 1)
    .order("created_at", { ascending: false })
    .limit(3),
);
out.publicProfileEmbed = pick(
  await client
    .from("user_roles")
    .select("private_profile_id,public_profile_id,profiles!user_roles_public_profile_id_fkey(name)")
    .eq("class_id", 1)
    .in("private_profile_id", ["20000001-0000-4000-8000-000000000003", "20000001-0000-4000-8000-000000000008"])
    .order("private_profile_id"),
);
out.single = pick(
  await client
    .from("assignments")
    .select("id,title,slug,due_date,total_points,has_autograder")
    .eq("id", 2)
    .eq("class_id", 1)
    .single(),
);
out.singleMissing = pick(await client.from("assignments").select("id").eq("id", 999).eq("class_id", 1).single());
out.maybeSingleNone = pick(await client.from("assignments").select("id").eq("id", 999).maybeSingle());
out.maybeSingleMany = pick(await client.from("assignments").select("id").eq("class_id", 1).maybeSingle());
out.orFilter = pick(
  await client
    .from("discussion_threads")
    .select("id,subject")
    .eq("class_id", 1)
    .is("parent", null)
    .or("subject.ilike.%hello%,body.ilike.%hello%")
    .order("created_at", { ascending: false })
    .limit(20),
);
out.invalidId = pick(await client.from("submissions").select("id").eq("id", "undefined").eq("class_id", 1));
out.countHead = pick(await client.from("help_requests").select("id", { count: "exact", head: true }).eq("class_id", 1));
const inserted = await client
  .from("api_tokens")
  .insert({
    user_id: "10000000-0000-4000-8000-000000000001",
    name: "supabase-js check",
    token_id: "supabasejs-check-jti",
    scopes: ["mcp:read"],
    expires_at: "2099-01-01T00:00:00.000Z",
  })
  .select("id,name,scopes,expires_at,created_at")
  .single();
out.insertSelect = {
  status: inserted.status,
  error: inserted.error ? { code: inserted.error.code, message: inserted.error.message } : null,
  name: inserted.data?.name,
  scopes: inserted.data?.scopes,
  expires_at: inserted.data?.expires_at,
  id_is_uuid: /^[0-9a-f-]{36}$/.test(inserted.data?.id ?? ""),
  created_at_has_offset: /\+00:00$/.test(inserted.data?.created_at ?? ""),
};
const patched = await client
  .from("api_tokens")
  .update({ revoked_at: "2026-02-01T00:00:00.000Z" })
  .eq("token_id", "supabasejs-check-jti");
out.update = { status: patched.status, error: patched.error };
const user = await client.auth.getUser(token);
out.getUser = {
  id: user.data.user?.id ?? null,
  email: user.data.user?.email ?? null,
  role: user.data.user?.role ?? null,
  error: user.error ? { status: user.error.status, message: user.error.message } : null,
};
const bad = await client.auth.getUser("not-a-jwt");
out.getUserBad = { user: bad.data.user, error: bad.error ? { status: bad.error.status, code: bad.error.code ?? null } : null };

process.stdout.write(JSON.stringify(out, null, 2) + "\n");
