; Bracket pairs for Zed (rainbow brackets, jump to the matching bracket).

("(" @open ")" @close)
("[" @open "]" @close)
("{" @open "}" @close)
(type_parameters "<" @open ">" @close)
(type_arguments "<" @open ">" @close)
(string "\"" @open "\"" @close)
