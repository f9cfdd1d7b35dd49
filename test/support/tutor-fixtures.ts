/** A small Python course written for these tests: each lesson is about one thing. */
export const PYTHON_LESSONS = [
  {
    title: 'Variables',
    content_md:
      '# Variables\n\nA variable is a name that refers to a value stored in memory. You create a variable with an ' +
      'assignment such as `x = 5`.\n\nVariable names are case sensitive and cannot start with a digit.',
  },
  {
    title: 'Lists',
    content_md:
      '# Lists\n\nA list is an ordered, mutable sequence of values written between square brackets. Lists can hold ' +
      'values of different types.\n\nYou add an item to the end of a list with the **append** method. The `len` ' +
      'function returns how many items a list holds.',
  },
  {
    title: 'Loops',
    content_md:
      'A for loop repeats a block of code for each item of a sequence such as a list. A while loop repeats while its ' +
      'condition stays true.\n\nThe break statement leaves a loop early.',
  },
  {
    title: 'Functions',
    content_md:
      'A function is a named block of code that runs when it is called. You define a function with the def ' +
      'keyword.\n\nA function returns a value with the return statement; parameters receive the arguments.',
  },
  {
    title: 'Dictionaries',
    content_md: 'A dictionary maps keys to values. Keys must be immutable, such as strings or numbers.',
  },
];
