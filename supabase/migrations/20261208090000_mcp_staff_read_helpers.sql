-- MCP gateway: the pieces the staff read tools' functions share
-- (20261208100000_mcp_rubric.sql … 20261208150000_mcp_regrade_request.sql),
-- written once.
--
--   * mcp_caller_is_class_staff — whether the caller holds an enabled
--     instructor or grader role in the class (their own user_roles rows).
--   * mcp_profile_membership — a profile's class membership as the tools
--     show it (docs/contract/tools.md §1.2), both ways round: the
--     user_roles row whose private profile it is and the one whose public
--     profile it is, each with the public profile's name; one row, null
--     when the profile is not one the caller may see.
--   * mcp_class_profiles — the profile look-up for a list
--     (docs/contract/tools.md §1.2): the class's user_roles rows of the
--     given private profiles with the public profile's name, as a JSON
--     array in the shape the tools read (functions/mcpserver/tools/staffrpc.go).
--
-- SECURITY INVOKER: every statement runs as the caller, under the same
-- row-level security as the statements they stand for. LANGUAGE sql, whose
-- body is not checked here (check_function_bodies is off for this file),
-- so the migration applies before Pawtograder's tables exist, as the
-- gateway's other migrations do. Idempotent.
--
-- Inlining: PostgreSQL inlines a SQL function only when it has no SET
-- clause, and then only a set-returning one called in FROM (a scalar one
-- whose body reads a table is never inlined). mcp_profile_membership runs
-- once per row (each comment's author), so it is set-returning, STABLE and
-- has no SET clause: the planner puts its body in the calling query, as if
-- it were written there, with no function call per row. Its names are all
-- schema-qualified, and operators and functions resolve in pg_catalog
-- first, so an unset search_path changes nothing. The other two run once a
-- call and cannot be inlined anyway, so they keep search_path = ''.

SET check_function_bodies = off;

CREATE OR REPLACE FUNCTION public.mcp_caller_is_class_staff(p_class_id bigint)
RETURNS boolean
LANGUAGE sql
STABLE
SECURITY INVOKER
SET search_path = ''
AS $$
    SELECT EXISTS (SELECT 1
                     FROM public.user_roles AS u
                    WHERE u.user_id = auth.uid() AND u.class_id = p_class_id AND u.disabled = false
                      AND u.role::text IN ('instructor', 'grader'));
$$;

CREATE OR REPLACE FUNCTION public.mcp_profile_membership(p_profile_id uuid)
RETURNS TABLE (membership json)
LANGUAGE sql
STABLE
SECURITY INVOKER
AS $$
    SELECT json_build_object(
        'private', (SELECT row_to_json(m)
                      FROM (SELECT u.class_id, u.role, u.public_profile_id,
                                   (SELECT row_to_json(n)
                                      FROM (SELECT pr.name FROM public.profiles AS pr WHERE pr.id = u.public_profile_id) AS n) AS pub
                              FROM public.user_roles AS u
                             WHERE u.private_profile_id = pf.id) AS m),
        'public', (SELECT row_to_json(m)
                     FROM (SELECT u.class_id, u.role, u.public_profile_id,
                                  (SELECT row_to_json(n)
                                     FROM (SELECT pr.name FROM public.profiles AS pr WHERE pr.id = u.public_profile_id) AS n) AS pub
                             FROM public.user_roles AS u
                            WHERE u.public_profile_id = pf.id) AS m))
      FROM public.profiles AS pf
     WHERE pf.id = p_profile_id;
$$;

CREATE OR REPLACE FUNCTION public.mcp_class_profiles(p_class_id bigint, p_private_profile_ids uuid[])
RETURNS json
LANGUAGE sql
STABLE
SECURITY INVOKER
SET search_path = ''
AS $$
    SELECT coalesce(json_agg(p), '[]')
      FROM (SELECT u.private_profile_id, u.public_profile_id, u.role,
                   (SELECT row_to_json(n)
                      FROM (SELECT pr.name FROM public.profiles AS pr WHERE pr.id = u.public_profile_id) AS n) AS profiles
              FROM public.user_roles AS u
             WHERE u.class_id = p_class_id
               AND u.private_profile_id = ANY (p_private_profile_ids)) AS p;
$$;

RESET check_function_bodies;

REVOKE ALL ON FUNCTION public.mcp_caller_is_class_staff(bigint) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_caller_is_class_staff(bigint) TO authenticated;
REVOKE ALL ON FUNCTION public.mcp_profile_membership(uuid) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_profile_membership(uuid) TO authenticated;
REVOKE ALL ON FUNCTION public.mcp_class_profiles(bigint, uuid[]) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.mcp_class_profiles(bigint, uuid[]) TO authenticated;
