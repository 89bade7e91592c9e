// Validates a NapCat-flavored OneBot peer's replies against NapCat's own published TypeBox
// schemas (packages/napcat-onebot/types/message.ts, action/schemas.ts), copied unmodified into src/ beside
// this script (see scripts/third-party/README.md); they are not part of this repository.
import { Value } from '@sinclair/typebox/value';
import { Type, TSchema } from '@sinclair/typebox';
import WebSocket from 'ws';
import { OB11MessageSchema, OB11MessageDataSchema } from './src/message.ts';
import { OB11UserSchema, OB11GroupSchema, OB11GroupMemberSchema } from './src/schemas.ts';
const base = process.argv[2]; const token = process.argv[3];
let pass = 0, fail = 0; const failures: string[] = [];
function check(what: string, schema: TSchema, v: unknown) {
  if (Value.Check(schema, v)) { pass++; return; }
  fail++; const errs = [...Value.Errors(schema, v)].slice(0, 3).map(e => `${e.path}: ${e.message} (got ${JSON.stringify(e.value)?.slice(0, 60)})`);
  failures.push(`${what}: ${errs.join('; ')}`);
}
async function call(action: string, params: object) {
  const r = await fetch(`${base}/${action}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(params) });
  const body = await r.json(); if (body.status !== 'ok') throw new Error(`${action}: ${JSON.stringify(body)}`); return body.data;
}
const login = await call('get_login_info', {});
check('get_login_info', Type.Object({ user_id: Type.Number(), nickname: Type.String() }), login);
const groups = await call('get_group_list', {});
groups.forEach((g: unknown, i: number) => check(`get_group_list[${i}]`, OB11GroupSchema, g));
for (const g of groups) {
  const members = await call('get_group_member_list', { group_id: g.group_id });
  members.forEach((m: unknown, i: number) => check(`get_group_member_list(${g.group_id})[${i}]`, OB11GroupMemberSchema, m));
  const info = await call('get_group_info', { group_id: g.group_id });
  check(`get_group_info(${g.group_id})`, OB11GroupSchema, info);
  const hist = await call('get_group_msg_history', { group_id: g.group_id, count: 50 });
  hist.messages.forEach((m: any, i: number) => check(`get_group_msg_history(${g.group_id})[${i}]`, OB11MessageSchema, m));
  if (hist.messages.length) {
    const one = await call('get_msg', { message_id: hist.messages[0].message_id });
    check(`get_msg(${hist.messages[0].message_id})`, OB11MessageSchema, one);
  }
}
const friends = await call('get_friend_list', {});
friends.forEach((f: unknown, i: number) => check(`get_friend_list[${i}]`, OB11UserSchema, f));
for (const f of friends) {
  try {
    const hist = await call('get_friend_msg_history', { user_id: f.user_id, count: 20 });
    hist.messages.forEach((m: any, i: number) => check(`get_friend_msg_history(${f.user_id})[${i}]`, OB11MessageSchema, m));
  } catch (e) { /* NapCat fails an empty history with 消息…不存在 */ }
}
// Events: the bot's own sends come back as message_sent events.
const ws = new WebSocket(`${base.replace('http', 'ws')}/?access_token=${token}`);
const events: any[] = [];
ws.on('message', (d) => { const v = JSON.parse(d.toString()); if (v.post_type === 'message' || v.post_type === 'message_sent') events.push(v); });
await new Promise((r) => ws.on('open', r));
const segs = [{ type: 'text', data: { text: 'schema check' } }, { type: 'face', data: { id: '14' } }, { type: 'at', data: { qq: String(login.user_id) } }];
await call('send_group_msg', { group_id: groups[0].group_id, message: segs });
await call('send_private_msg', { user_id: friends[0].user_id, message: 'hi [CQ:face,id=1]' });
await new Promise((r) => setTimeout(r, 500)); ws.close();
events.forEach((e, i) => check(`event[${i}] ${e.post_type}/${e.message_type}`, OB11MessageSchema, e));
segs.forEach((s, i) => check(`sent segment[${i}] ${s.type}`, OB11MessageDataSchema, s));
console.log(`${pass} passed, ${fail} failed`);
const uniq = new Map<string, number>(); for (const f of failures) { const k = f.replace(/\(\d+\)|\[\d+\]/g, ''); uniq.set(k, (uniq.get(k) || 0) + 1); }
for (const [k, n] of uniq) console.log(`  x${n} ${k}`);
