// Writes cases.jsonl: 210 labeled cases for `turn calibrate` that a very small model (Gemma 3 270M)
// gets partly right — sums, comparisons, the sentiment of a short review, the kind of a thing, the
// capital of a country. Deterministic (a fixed-seed generator): `node make-dataset.mjs` writes the
// same file again.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let state = 42;
const rand = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const positive = ['I loved this film, it was wonderful.', 'Great service and friendly staff.', 'The best pizza I have ever had.', 'Absolutely fantastic, would buy again.', 'A delightful book, I enjoyed every page.', 'The hotel was clean and the view was beautiful.', 'Fast delivery and it works perfectly.', 'What a lovely concert, the band was superb.', 'My new shoes are very comfortable.', 'The teacher was kind and very helpful.'];
const negative = ['Terrible film, a waste of two hours.', 'The food was cold and the waiter was rude.', 'It broke after one day.', 'Awful customer support, never again.', 'The room was dirty and noisy.', 'Boring book, I could not finish it.', 'The package arrived late and damaged.', 'The worst coffee I have ever tasted.', 'The app crashes every time I open it.', 'Overpriced and disappointing.'];
const things = [['dog', 'animal'], ['cat', 'animal'], ['horse', 'animal'], ['eagle', 'animal'], ['salmon', 'animal'], ['carrot', 'vegetable'], ['potato', 'vegetable'], ['onion', 'vegetable'], ['cabbage', 'vegetable'], ['spinach', 'vegetable'], ['bicycle', 'vehicle'], ['truck', 'vehicle'], ['train', 'vehicle'], ['airplane', 'vehicle'], ['canoe', 'vehicle']];
const capitals = [['France', 'Paris'], ['Germany', 'Berlin'], ['Italy', 'Rome'], ['Spain', 'Madrid'], ['Japan', 'Tokyo'], ['Egypt', 'Cairo'], ['Canada', 'Ottawa'], ['Australia', 'Canberra'], ['Brazil', 'Brasilia'], ['Kenya', 'Nairobi'], ['Norway', 'Oslo'], ['Peru', 'Lima']];
const cities = capitals.map(([, c]) => c).concat(['Sydney', 'Toronto', 'Milan', 'Barcelona', 'Osaka', 'Munich']);

function shuffle(xs) {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const makers = [
  () => {
    const a = int(2, 49);
    const b = int(2, 49);
    return { prompt: `What is ${a} + ${b}? Answer with the number.`, expected: a + b };
  },
  () => {
    const a = int(2, 12);
    const b = int(2, 12);
    return { prompt: `What is ${a} times ${b}? Answer with the number.`, expected: a * b };
  },
  () => {
    const a = int(1, 99);
    let b = int(1, 99);
    if (b === a) b++;
    return { prompt: `Is ${a} greater than ${b}? Answer true or false.`, expected: a > b };
  },
  () => {
    const good = rand() < 0.5;
    return { prompt: `What is the sentiment of this review? Review: "${pick(good ? positive : negative)}"`, choices: ['positive', 'negative'], expected: good ? 'positive' : 'negative' };
  },
  () => {
    const [thing, kind] = pick(things);
    return { prompt: `Is a ${thing} an animal, a vegetable or a vehicle?`, choices: ['animal', 'vegetable', 'vehicle'], expected: kind };
  },
  () => {
    const [country, capital] = pick(capitals);
    const others = shuffle(cities.filter((c) => c !== capital)).slice(0, 3);
    return { prompt: `What is the capital of ${country}?`, choices: shuffle([capital, ...others]), expected: capital };
  },
];

const lines = [];
for (let i = 0; i < 210; i++) lines.push(JSON.stringify({ id: `c${String(i + 1).padStart(3, '0')}`, ...makers[i % makers.length]() }));
writeFileSync(fileURLToPath(new URL('cases.jsonl', import.meta.url)), lines.join('\n') + '\n');
