// Drives snapdoc-server with the official `openai` npm package (run by test_server_clients.cpp):
//   node openai_client.mjs BASE_URL NPM_DIR
// Exits non-zero with a message on the first failed check.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [, , baseURL, npmDir] = process.argv;
const { default: OpenAI } = await import(pathToFileURL(path.join(npmDir, 'node_modules', 'openai', 'index.mjs')).href);

function check(cond, what) {
  if (!cond) {
    console.error('FAILED: ' + what);
    process.exit(1);
  }
  console.log('ok: ' + what);
}

const client = new OpenAI({ baseURL, apiKey: 'test-key', maxRetries: 0, timeout: 60000 });
const messages = [{ role: 'user', content: 'The alarm code for the south office is 3013.\n\nQuestion: What is the alarm code for the south office?' }];

const models = await client.models.list();
// The model's own name (the demo GGUF's general.name), which a client then asks for.
const model = models.data[0]?.id;
check(models.data.length === 1 && model === 'snapdoc-demo', 'models.list names the model: ' + model);

const c = await client.chat.completions.create({ model, messages, temperature: 0, max_tokens: 32 });
check(typeof c.choices[0].message.content === 'string' && c.choices[0].message.content.includes('3013'), 'non-streamed answer: ' + c.choices[0].message.content);
check(c.choices[0].finish_reason === 'stop', 'finish_reason stop');
check(c.usage.prompt_tokens > 10 && c.usage.completion_tokens > 0 && c.usage.total_tokens === c.usage.prompt_tokens + c.usage.completion_tokens, 'usage counts');

const stream = await client.chat.completions.create({ model, messages, temperature: 0, max_tokens: 32, stream: true, stream_options: { include_usage: true } });
let text = '';
let finish = null;
let usage = null;
for await (const chunk of stream) {
  if (chunk.usage) { usage = chunk.usage; check(chunk.choices.length === 0, 'usage chunk has empty choices'); }
  for (const ch of chunk.choices) {
    text += ch.delta?.content ?? '';
    if (ch.finish_reason) finish = ch.finish_reason;
  }
}
check(text === c.choices[0].message.content, 'streamed text equals the non-streamed answer');
check(finish === 'stop', 'stream ends with finish_reason stop');
check(usage && usage.completion_tokens === c.usage.completion_tokens, 'include_usage chunk');

const stopped = await client.chat.completions.create({ model, messages, temperature: 0, max_tokens: 32, stop: ['south'] });
check(!stopped.choices[0].message.content.includes('south') && c.choices[0].message.content.startsWith(stopped.choices[0].message.content), 'stop string cuts the answer: ' + stopped.choices[0].message.content);

const seeded = { model, messages, temperature: 1.3, seed: 1234, max_tokens: 16 };
const s1 = await client.chat.completions.create(seeded);
const s2 = await client.chat.completions.create(seeded);
check(s1.choices[0].message.content === s2.choices[0].message.content, 'same seed, same sample');

try {
  await client.chat.completions.create({ model, messages, n: 3 });
  check(false, 'n=3 must fail');
} catch (e) {
  check(e.status === 400 && e.error?.param === 'n', 'n=3 is a 400 naming n (' + e.message + ')');
}
try {
  await client.chat.completions.create({ model, messages: [] });
  check(false, 'empty messages must fail');
} catch (e) {
  check(e.status === 400 && e.error?.param === 'messages', 'empty messages is a 400 naming messages');
}
const wrongKey = new OpenAI({ baseURL, apiKey: 'wrong', maxRetries: 0 });
try {
  await wrongKey.models.list();
  check(false, 'a wrong key must fail');
} catch (e) {
  check(e.status === 401, 'wrong API key is a 401');
}
const comp = await client.completions.create({ model, prompt: 'The alarm code is 3013.', max_tokens: 4, temperature: 0 });
check(typeof comp.choices[0].text === 'string', 'completions.create');
console.log('openai npm client: all checks passed');
