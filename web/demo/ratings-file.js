// A ratings file as users have it, read and checked when it is chosen: MovieLens-1M's ratings.dat
// (user::movie::rating::time), MovieLens-100k's u.data (tab-separated) and the later MovieLens
// ratings.csv (comma-separated, with a header line userId,movieId,rating,timestamp).
//
// The library's parser (cpp/src/env/ratings_table.cpp) reads '::' or blank-separated lines and
// has no header or comma support, so a CSV file is converted here, in the demo, to the '::' format
// it reads; the other two formats are passed on unchanged.

const integer = /^\d+$/;
const decimal = /^[+-]?(\d+\.?\d*|\.\d+)$/;

function formatOf(line) {
  if (line.includes('::')) return { name: 'MovieLens .dat (user::movie::rating::time)', split: (text) => text.split('::') };
  if (line.includes('\t')) return { name: 'tab-separated (user, item, rating, time)', split: (text) => text.split('\t') };
  if (line.includes(',')) return { name: 'CSV', split: (text) => text.split(','), csv: true };
  return { name: 'blank-separated', split: (text) => text.trim().split(/\s+/) };
}

export class RatingsFileError extends Error {}

// bytes: the file's contents. Returns { bytes: what simulate() gets, format, converted, ratings,
// users, items, ratingsPerUser: counts, ratersPerItem: counts } or throws a RatingsFileError that
// names the line at fault.
export function readRatingsFile(bytes) {
  let text = new TextDecoder('utf-8').decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.trim() !== '');
  if (first < 0) throw new RatingsFileError('The file is empty.');
  const format = formatOf(lines[first]);
  // A first line whose first field is not a number is a header (ratings.csv has one).
  const header = !integer.test(format.split(lines[first].trim())[0].trim());
  if (header && !format.csv) {
    throw new RatingsFileError(`Line ${first + 1} is not a rating: "${lines[first].slice(0, 80)}". Expected user, movie, rating and time, all numbers.`);
  }
  const perUser = new Map();
  const perItem = new Map();
  const converted = format.csv ? [] : null;
  let count = 0;
  for (let i = header ? first + 1 : first; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const fields = format.split(line).map((field) => field.trim());
    const fail = (why) => {
      throw new RatingsFileError(`Line ${i + 1}: ${why} (expected ${format.csv ? 'userId,movieId,rating,timestamp' : 'user, movie, rating, time'}), got "${line.slice(0, 80)}${line.length > 80 ? '…' : ''}".`);
    };
    if (fields.length !== 4) fail(`${fields.length} fields instead of 4`);
    const [user, item, rating, time] = fields;
    if (!integer.test(user)) fail('the user is not a whole number');
    if (!integer.test(item)) fail('the movie is not a whole number');
    if (!decimal.test(rating)) fail('the rating is not a number');
    if (!integer.test(time)) fail('the timestamp is not a whole number');
    perUser.set(user, (perUser.get(user) ?? 0) + 1);
    perItem.set(item, (perItem.get(item) ?? 0) + 1);
    converted?.push(`${user}::${item}::${rating}::${time}`);
    count++;
  }
  if (count === 0) throw new RatingsFileError('The file has no ratings.');
  return {
    bytes: converted ? new TextEncoder().encode(`${converted.join('\n')}\n`) : bytes,
    format: `${format.name}${header ? ' with a header' : ''}`,
    converted: Boolean(converted),
    ratings: count,
    users: perUser.size,
    items: perItem.size,
    ratingsPerUser: [...perUser.values()],
    ratersPerItem: [...perItem.values()],
  };
}

const number = (value) => value.toLocaleString('en-US');

export function describeRatings(name, file) {
  return `${name}: ${number(file.ratings)} ratings by ${number(file.users)} users of ${number(file.items)} movies (${file.format}`
    + `${file.converted ? '; converted to the user::movie::rating::time lines the library reads' : ''}).`;
}

// What a preset's environment needs from the file, as a problem to show, or null when it fits.
export function ratingsProblem(file, environment) {
  if (environment.type === 'ratings') {
    const minRatings = environment.minRatings ?? 100;
    const eligible = file.ratingsPerUser.filter((count) => count > minRatings).length;
    if (eligible === 0) {
      return `No user of this file rated more than ${number(minRatings)} movies, so no user can be held out: lower "held-out users rated more than" (the most any user rated is ${number(Math.max(...file.ratingsPerUser))}).`;
    }
  }
  if (environment.type === 'promotion') {
    const low = environment.testMinRaters ?? 1400;
    const high = environment.testMaxRaters ?? 2800;
    const promotions = environment.promotions ?? 10;
    const candidates = file.ratersPerItem.filter((count) => count >= low && count <= high).length;
    if (candidates < promotions) {
      const most = Math.max(...file.ratersPerItem);
      return `This file has ${number(candidates)} movies rated by ${number(low)} to ${number(high)} users, fewer than the ${promotions} promotions: change the rater limits (its most rated movie has ${number(most)} raters).`;
    }
    const perRound = environment.users ?? 100 * (environment.k ?? 50);
    if (file.users < perRound) {
      return `This preset draws ${number(perRound)} users per round at this scale, but the file has ${number(file.users)} users: use a larger file (MovieLens-100k has 943 users, MovieLens-1M 6,040).`;
    }
  }
  return null;
}
