// The test course of the tutor benchmark: 20 topics of a Python course, 10 lessons each (200 lessons), with
// the topics interleaved through the course, shared filler paragraphs and a cross-reference to another topic in
// every lesson (distractors), and one question per topic written in other words than the lessons (the ground truth
// is the topic's 10 lessons).

export const TOPICS = [
  {
    name: 'Variables',
    facts: [
      'A variable is a name bound to a value with an assignment.',
      'Assignment uses the equals sign, as in count = 10.',
      'Variable names are case sensitive, so Total and total differ.',
      'A name cannot start with a digit or contain spaces.',
      'Reassigning a variable makes the name refer to a new value.',
    ],
    question: 'Are variable names case sensitive?',
  },
  {
    name: 'Strings',
    facts: [
      'A string is text between single or double quotes.',
      'Strings are immutable: methods such as upper return a new string.',
      'You join strings with the plus operator or with an f-string.',
      'The strip method removes whitespace from both ends of a string.',
      'Indexing a string returns one character.',
    ],
    question: 'How do I remove whitespace around a piece of text?',
  },
  {
    name: 'Lists',
    facts: [
      'A list is an ordered, mutable sequence written with square brackets.',
      'The append method adds an item at the end of a list.',
      'The pop method removes and returns the last item.',
      'Sorting a list in place uses the sort method.',
      'A list can hold values of different types.',
    ],
    question: 'How can I add an item to the end of a list?',
  },
  {
    name: 'Tuples',
    facts: [
      'A tuple is an ordered sequence that cannot be changed after creation.',
      'Tuples are written with parentheses and commas.',
      'Unpacking assigns the elements of a tuple to several names at once.',
      'Because they are immutable, tuples can be dictionary keys.',
      'A tuple with one element needs a trailing comma.',
    ],
    question: 'Why does a one-element tuple need a trailing comma?',
  },
  {
    name: 'Dictionaries',
    facts: [
      'A dictionary maps keys to values inside curly braces.',
      'You read a value with its key in square brackets.',
      'The get method returns a default when the key is missing.',
      'The del statement removes a key and its value.',
      'Keys must be hashable, such as strings, numbers or tuples.',
    ],
    question: 'How do I delete a key from a dictionary?',
  },
  {
    name: 'Sets',
    facts: [
      'A set is an unordered collection without duplicates.',
      'Sets support union, intersection and difference.',
      'The add method inserts an element into a set.',
      'Membership tests with in are fast on sets.',
      'Converting a list to a set drops repeated values.',
    ],
    question: 'How do I get rid of duplicates in a collection?',
  },
  {
    name: 'Conditionals',
    facts: [
      'An if statement runs a block only when its condition is true.',
      'The elif branch checks another condition when the previous ones failed.',
      'The else branch runs when no condition was true.',
      'Comparison operators such as == and < produce booleans.',
      'Indentation marks which statements belong to a branch.',
    ],
    question: 'What runs when no condition of an if statement is true?',
  },
  {
    name: 'For loops',
    facts: [
      'A for loop iterates over each element of a sequence.',
      'The range function produces numbers for counting loops.',
      'The enumerate function yields the index together with each element.',
      'The break statement stops a loop early.',
      'The continue statement skips to the next iteration.',
    ],
    question: 'How do I get the index of each element while iterating?',
  },
  {
    name: 'While loops',
    facts: [
      'A while loop repeats as long as its condition stays true.',
      'Forgetting to update the condition causes an infinite loop.',
      'A while loop suits input validation that repeats until the input is valid.',
      'A counter variable often controls a while loop.',
      'An else clause after a while loop runs when the loop was not broken.',
    ],
    question: 'Why does my while loop never stop?',
  },
  {
    name: 'Functions',
    facts: [
      'A function is defined with def, a name and parameters in parentheses.',
      'The return statement sends a result back to the caller.',
      'Default parameter values make arguments optional.',
      'Keyword arguments name the parameter they set.',
      'A function without return gives back None.',
    ],
    question: 'What does a function give back when it has no return statement?',
  },
  {
    name: 'Scope',
    facts: [
      'Names assigned inside a function are local to it.',
      'The global statement lets a function rebind a module-level name.',
      'The nonlocal statement rebinds a name of the enclosing function.',
      'Python looks names up in local, enclosing, global and built-in order.',
      'Local variables disappear when the function returns.',
    ],
    question: 'How can a nested function rebind a name of the enclosing function?',
  },
  {
    name: 'Exceptions',
    facts: [
      'Errors at run time raise exceptions.',
      'A try block with except handles an exception instead of crashing.',
      'The finally clause runs whether or not an exception happened.',
      'The raise statement signals an error deliberately.',
      'Catching a broad Exception can hide bugs.',
    ],
    question: 'How do I make sure cleanup code always runs, even after an error?',
  },
  {
    name: 'Files',
    facts: [
      'The open function returns a file object.',
      'A with statement closes the file automatically.',
      "Mode 'w' overwrites a file and mode 'a' appends to it.",
      'The read method returns the whole content as a string.',
      'Iterating over a file yields one line at a time.',
    ],
    question: 'How do I append text to an existing file without overwriting it?',
  },
  {
    name: 'Modules',
    facts: [
      'A module is a Python file whose names you can import.',
      'The import statement loads a module once per program.',
      'from math import sqrt imports one name directly.',
      "The __name__ variable equals '__main__' when a file runs as a script.",
      'Packages are folders of modules with an __init__ file.',
    ],
    question: 'How can I check whether my file is being run as a script?',
  },
  {
    name: 'Classes',
    facts: [
      'A class defines a new type with attributes and methods.',
      'The __init__ method initialises a new object.',
      'The self parameter refers to the current instance.',
      'Inheritance lets a subclass reuse and extend a parent class.',
      'The super function calls a method of the parent class.',
    ],
    question: 'How does a subclass call the constructor of its parent class?',
  },
  {
    name: 'Comprehensions',
    facts: [
      'A list comprehension builds a list from an expression and a for clause.',
      'An if clause inside a comprehension filters elements.',
      'Dictionary comprehensions build dictionaries from key and value expressions.',
      'Generator expressions produce values lazily with parentheses.',
      'Comprehensions are often shorter than equivalent loops.',
    ],
    question: 'Is there a short way to build a list by filtering another one?',
  },
  {
    name: 'Generators',
    facts: [
      'A generator function uses yield instead of return.',
      'Each call to next resumes the generator where it paused.',
      'Generators produce values lazily, saving memory.',
      'A generator is exhausted after its last yield.',
      'The itertools module offers tools that work with generators.',
    ],
    question: 'How do I produce a long sequence of values lazily, without using much memory?',
  },
  {
    name: 'Testing',
    facts: [
      'Unit tests check small pieces of code in isolation.',
      'The assert statement fails when its condition is false.',
      'The unittest module provides test cases and assertions.',
      'pytest discovers test functions whose names start with test.',
      'Tests should be fast, independent and repeatable.',
    ],
    question: 'How does pytest find my tests?',
  },
  {
    name: 'Virtual environments',
    facts: [
      'A virtual environment isolates the packages of one project.',
      'python -m venv creates a virtual environment in a folder.',
      'Activating the environment puts its interpreter first on the path.',
      'pip installs packages from the Python Package Index.',
      'A requirements file lists the packages a project needs.',
    ],
    question: 'How do I keep the packages of two projects separate?',
  },
  {
    name: 'Dates and times',
    facts: [
      'The datetime module represents dates and times.',
      'datetime.now returns the current local date and time.',
      'A timedelta measures the difference between two dates.',
      'strftime formats a date as text with codes such as %Y.',
      'Time zones are attached with the zoneinfo module.',
    ],
    question: 'How can I compute how many days lie between two dates?',
  },
];

const FILLER = [
  'In this part we practise the ideas above with short exercises. Try each example in the interpreter and change it to see what happens.',
  'Remember that readable code matters more than clever code. Choose clear names and keep every function small.',
  'Review the previous lessons if something here feels new. Every concept builds on the ones before it.',
  'At the end of the part, a short quiz checks what you learned. Take your time and read each question carefully.',
];

export const PARTS = 10;

/** The 200 lessons in course order: lesson p (0-based) is part floor(p / 20) + 1 of topic p % 20. */
export function lessons() {
  const out = [];
  for (let p = 0; p < TOPICS.length * PARTS; p++) {
    const t = p % TOPICS.length;
    const part = Math.floor(p / TOPICS.length);
    const topic = TOPICS[t];
    const facts = [0, 1, 2].map((j) => topic.facts[(part + j) % topic.facts.length]);
    const other = TOPICS[(t + 1 + (part % (TOPICS.length - 1))) % TOPICS.length].name.toLowerCase();
    out.push({
      topic: t,
      title: `${topic.name}: part ${part + 1}`,
      content_md: `# ${topic.name}, part ${part + 1}\n\n${facts.join(' ')}\n\n${FILLER[part % FILLER.length]} This connects with the lesson on ${other}.`,
    });
  }
  return out;
}
