const words = (text: string): Set<string> => new Set(text.trim().split(/\s+/));

/** Words that carry grammar, not meaning; ignored when matching a prompt against tools. */
export const FUNCTION_WORDS = words(`
  a an the and or but nor so yet if then else than that this these those there here it its it's
  i me my mine we us our you your yours he him his she her they them their what which who whom whose
  when where why how is are was were be been being am do does did done doing have has had having
  can could would should will shall may might must not no yes of in on at to from by for with without
  about into onto over under up down out off as per via vs please thanks thank hi hello hey ok okay
  some any all each every both either neither much many more most few less least very really just also
  too only even still again now then soon what's it's i'm i'd i'll you're we're they're let's don't
  can't won't isn't aren't doesn't didn't i've there's that's
`);

/** Function words plus the words of asking (tell, write, words...), ignored when picking a topic. */
export const STOPWORDS = new Set([
  ...FUNCTION_WORDS,
  ...words(`
    tell give show say said write writes written make made get got need want like know let use using used
    explain describe summarize summarise summary list reply respond answer question questions ask asked
    word words sentence sentences paragraph paragraphs long short brief briefly detailed exactly
    thing things something anything everything way ways lot lots kind sort one two three four five
    six seven eight nine ten first second third next last new good great well sure right think
    please return output print repeat result results value values call calling called tool tools
    json format response message text using based according current currently today now help
    step steps bit translate plan draft compose generate create suggest recommend provide produce
    outline brainstorm propose rewrite paraphrase continue extract classify identify convert compare
    define calculate compute essay article poem haiku story blog
  `),
]);

/** Capitalised words that start sentences or name formats rather than things; not named entities. */
export const STARTERS = words(`
  Tell Give Show Find Get Write Make Explain Describe Summarize Summarise List Compute Calculate
  Translate Add Create Send Read Search Fetch Look Check Call Use Please Hello Hi Hey Thanks Respond
  Reply Answer Say Return Repeat Generate Draw Paint Compose Suggest Recommend Help Convert Count
  Define Compare Rewrite Edit Fix Plan Draft Keep Note Remember Imagine Consider Based According
  Using Here There Yes No Ok Okay Sure Now Next First Second Third Finally Also Then What Who How
  When Where Why Which Is Are Can Could Would Should Will Do Does Did I The A An JSON API URL PNG
  JPEG WAV MP3 MP4 OK Be Let If In On At For With From To Of By As And Or But It This That My Your
  Our We You He She They Today Tomorrow Yesterday Store Save Open Run Set Give Play Sing
  Extract Classify Identify Parse Format Sort Rank Rate Review Analyze Analyse Evaluate Verify
  Predict Estimate Schedule Book Order Buy Sell Email Text Message Remind Post Share Upload Download
  Delete Remove Update Change Modify Move Copy Rename Invite Introduce Outline Brainstorm Propose
  Name Pick Choose Select Decide Solve Prove Derive Simplify Expand Shorten Proofread Correct Improve
  Optimize Optimise Refactor Debug Test Build Deploy Install Configure Start Stop Restart Turn Switch
  Ask Locate Track Monitor Record Log Measure Translate Teach Recommend Provide Produce Design
  Reply Rewrite Paraphrase Continue Finish Complete Fill Include List Mention Output Print Sum Take
`);
